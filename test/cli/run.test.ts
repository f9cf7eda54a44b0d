import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task, TaskWithHistory } from '../../shared/domain.ts';
import { exited, spawnNode, tempDir, waitFor } from '../helpers.ts';
import { BIN, cli, cliOnTty, freshDb, json } from './cli-helpers.ts';

/** A command that records when it ran, says hello on stdout, and exits with `code`. */
function timedCommand(log: string, label: string, code: number, ms = 300): string[] {
  const script = `
    const fs = require('node:fs');
    fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ label: ${JSON.stringify(label)}, at: Date.now(), edge: 'start' }) + '\\n');
    console.log('hello from ${label}');
    setTimeout(() => {
      fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ label: ${JSON.stringify(label)}, at: Date.now(), edge: 'end' }) + '\\n');
      process.exit(${code});
    }, ${ms});`;
  return [process.execPath, '-e', script];
}

describe('semaforo run', () => {
  it('three concurrent runs in a group of concurrency 1 never overlap, and pass their exit codes through', async () => {
    const db = freshDb();
    const log = path.join(tempDir(), 'runs.ndjson');
    expect((await cli(['group', 'set', 'g', '--concurrency', '1'], { db })).code).toBe(0);
    const runs = await Promise.all(
      [
        ['a', 0],
        ['b', 3],
        ['c', 0],
      ].map(([label, code]) =>
        cli(['run', '--quiet', '--group', 'g', '--', ...timedCommand(log, String(label), Number(code))], {
          db,
        }),
      ),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 3, 0]);
    // The command ran with the caller's stdout, not captured by a worker elsewhere.
    expect(runs.map((r) => r.stdout.trim())).toEqual(['hello from a', 'hello from b', 'hello from c']);

    const events = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { label: string; at: number; edge: string })
      .sort((x, y) => x.at - y.at);
    let inside = 0;
    for (const e of events) {
      inside += e.edge === 'start' ? 1 : -1;
      expect(inside).toBeLessThanOrEqual(1);
    }
    expect(events).toHaveLength(6);

    const tasks = json<Task[]>(
      await cli(['--json', 'list', '--sort', 'createdAt', '--order', 'asc'], { db }),
    );
    expect(tasks.map((t) => t.status).sort()).toEqual(['done', 'done', 'failed']);
    expect(tasks.every((t) => t.maxAttempts === 1 && t.group === 'g')).toBe(true);
  });

  it('maps a missing command to 127 and a timeout to 124, recording both in the queue', async () => {
    const db = freshDb();
    const missing = await cli(['run', '--', 'semaforo-no-such-program-xyz'], { db });
    expect(missing.code).toBe(127);
    const slow = await cli(
      ['run', '--timeout', '200ms', '--', process.execPath, '-e', 'setTimeout(() => {}, 30000)'],
      {
        db,
      },
    );
    expect(slow.code).toBe(124);
    const t1 = json<TaskWithHistory>(await cli(['--json', 'show', '1'], { db }));
    const t2 = json<TaskWithHistory>(await cli(['--json', 'show', '2'], { db }));
    expect(t1.error).toMatch(/command not found: "semaforo-no-such-program-xyz"/);
    expect(t2.error).toMatch(/timed out after 200 ms/);
  });

  it.skipIf(process.platform !== 'linux')(
    'on a terminal, a timeout stops what the command started too, before the next attempt',
    async () => {
      const db = freshDb();
      const pids = path.join(path.dirname(db), 'pids');
      // The command starts a child in its own (the terminal's) process group that ignores
      // SIGTERM and SIGHUP: only the attempt's tag finds it.
      const stubborn = `process.on('SIGTERM', () => {}); process.on('SIGHUP', () => {}); require('node:fs').appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n'); setInterval(() => {}, 1000);`;
      const command = `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(stubborn)}], { stdio: 'ignore' }); setInterval(() => {}, 1000);`;
      const r = await cliOnTty(
        ['run', '--timeout', '3s', '--max-attempts', '2', '--', process.execPath, '-e', command],
        db,
      );
      const left = fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number);
      const running = left.filter((pid) => {
        let state: string;
        try {
          const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
          state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        } catch {
          return false; // gone
        }
        if (state === 'Z') return false; // ended, not yet collected by its new parent
        process.kill(pid, 'SIGKILL');
        return true;
      });
      expect(r.code, r.output).toBe(124);
      // one per attempt that got as far (on a loaded machine the second may time out first)
      expect(left.length, r.output).toBeGreaterThanOrEqual(1);
      expect(running).toEqual([]);
    },
  );

  it('waits while the queue is paused, says why, then runs when it is resumed from another process', async () => {
    const db = freshDb();
    await cli(['pause'], { db });
    const child = spawnNode([BIN, '--db', db, 'run', '--', process.execPath, '-e', 'console.log("ran")']);
    let stdout = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    const note = await new Promise<string>((resolve) => {
      let err = '';
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        if (err.includes('\n')) resolve(err);
      });
    });
    expect(note).toMatch(/waiting: the queue is paused \(semaforo resume\)/);
    // Held for that process: visible as pending to everyone else, reserved for the run.
    const pending = json<Task[]>(await cli(['--json', 'list', '--status', 'pending'], { db }));
    expect(pending[0]!.reservedFor).toMatch(/^run@/);
    await cli(['resume'], { db });
    expect(await exited(child)).toBe(0);
    expect(stdout).toContain('ran');
  });

  it("cancels a killed run's waiting task without a word on another run's stderr", async () => {
    const db = freshDb();
    const env = { SEMAFORO_HOME: path.dirname(db) };
    await cli(['group', 'set', 'one', '--concurrency', '1'], { db });
    // null until the run has enqueued it
    const statusOf = async (id: number) => {
      const r = await cli(['--json', 'show', String(id)], { db });
      return r.code === 0 ? json<Task>(r).status : null;
    };
    const first = spawnNode([BIN, '--db', db, 'run', '-q', '-g', 'one', '--', 'sleep', '60'], env);
    let firstErr = '';
    first.stderr!.on('data', (c: Buffer) => (firstErr += c.toString()));
    await waitFor(async () => (await statusOf(1)) === 'running', 'the first run started');
    const second = spawnNode([BIN, '--db', db, 'run', '-q', '-g', 'one', '--', 'true'], env);
    await waitFor(
      async () => json<Task[]>(await cli(['--json', 'list'], { db })).length === 2,
      'the second run queued its task',
    );
    second.kill('SIGKILL');
    await exited(second);
    // Only the first run's dispatcher is there to notice the dead one.
    await waitFor(async () => (await statusOf(2)) === 'cancelled', "the dead run's task cancelled");
    expect((await cli(['cancel', '1'], { db })).code).toBe(0);
    expect(await exited(first)).toBe(130);
    expect(firstErr).toBe('semaforo: cancelled\n');
  });

  it('refuses a run without a command', async () => {
    const r = await cli(['run', '--group', 'g'], { db: freshDb() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing required argument 'command'/);
  });
});
