/**
 * Machine gates through the CLI, judged on this machine's real /proc by a `semaforo work`
 * process: a memory floor no machine meets holds every start; lowering it lets them go.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import type { GateConfig } from '../../shared/domain.ts';
import fs from 'node:fs';
import path from 'node:path';
import { exited, spawnNode, waitFor } from '../helpers.ts';
import { BIN, cli, freshDb, json } from './cli-helpers.ts';

const workers: ChildProcess[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    w.kill('SIGTERM');
    await exited(w);
  }
});

describe('semaforo gate', () => {
  it('holds starts while a gate is closed on this machine, names it, and starts once it opens', async () => {
    const db = freshDb();
    const set = await cli(['gate', 'set', '--min-free-memory', '100000g', '--json'], { db });
    expect(json<GateConfig>(set)).toEqual({
      group: null,
      maxLoad: null,
      minFreeMemory: 100000 * 1024 ** 3,
      onAc: false,
      whenIdleMs: null,
      pauseRunning: false,
    });
    const task = json<{ id: number }>(await cli(['enqueue', '--json', '--', 'true'], { db }));
    // Read from its first byte: the gate may close in the same write as the start line.
    let stderr = '';
    const worker = spawnNode([BIN, '--db', db, 'work'], { SEMAFORO_HOME: path.dirname(db) });
    worker.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    workers.push(worker);
    await waitFor(
      () => stderr.includes('the queue gate closed: available memory'),
      'the worker closed the gate',
    );
    const show = await cli(['show', String(task.id)], { db });
    expect(show.stdout).toMatch(
      /^ {2}waiting {4}available memory .* < 100000 GiB \(the queue's machine gate, on this machine\)$/m,
    );
    expect((await cli(['gate', 'list'], { db })).stdout).toMatch(
      /\(queue\) +≥ 100000 GiB available +closed: /,
    );
    expect((await cli(['gate', 'set', '--min-free-memory', 'none', '--max-load', 'none'], { db })).code).toBe(
      0,
    );
    await waitFor(
      async () =>
        json<{ status: string }>(await cli(['show', String(task.id), '--json'], { db })).status === 'done',
      'the task done once the gate opened',
    );
    expect(stderr).toContain('the queue gate opened');
  });

  it('keeps --when-idle and --pause-running, and says the CLI cannot read the idle time', async () => {
    const db = freshDb();
    const set = await cli(['gate', 'set', 'indexing', '--when-idle', '5m', '--pause-running', '--json'], {
      db,
    });
    expect(json<GateConfig>(set)).toMatchObject({
      group: 'indexing',
      whenIdleMs: 300_000,
      pauseRunning: true,
    });
    const list = await cli(['gate', 'list'], { db });
    expect(list.stdout).toMatch(
      /indexing +user idle ≥ 5m; pauses running shell tasks +open \(cannot read the idle time \(only the tray app reads it, where the desktop tells it\)\)/,
    );
    const here = json<{ here: { idleMs: number | null } }>(await cli(['gate', 'list', '--json'], { db }));
    expect(here.here.idleMs).toBeNull();
    const stats = json<{ gates: GateConfig[] }>(await cli(['--json', 'stats'], { db }));
    expect(stats.gates).toMatchObject([{ group: 'indexing', whenIdleMs: 300_000 }]);
    const off = await cli(
      ['gate', 'set', 'indexing', '--when-idle', 'none', '--no-pause-running', '--json'],
      { db },
    );
    expect(json<GateConfig>(off)).toMatchObject({ whenIdleMs: null, pauseRunning: false });
  });

  it("keeps another group's closed gate out of a `run`'s stderr (cron would mail it)", async () => {
    const db = freshDb();
    expect((await cli(['gate', 'set', 'backups', '--min-free-memory', '100000g'], { db })).code).toBe(0);
    const run = await cli(['run', '--', 'echo', 'ran'], { db });
    expect(run).toMatchObject({ code: 0, stdout: 'ran\n', stderr: '' });
    // Still there for whoever asks for the dispatcher's log.
    const verbose = await cli(['--verbose', 'run', '--', 'true'], { db });
    expect(verbose.stderr).toContain('the gate of group backups closed: available memory');
  });

  it("says on a `run`'s stderr when its own command is paused by its gate, and continued", async () => {
    const db = freshDb();
    const go = path.join(path.dirname(db), 'go');
    await cli(['gate', 'set', 'g', '--min-free-memory', '1m', '--pause-running'], { db });
    const run = spawnNode([
      BIN,
      '--db',
      db,
      'run',
      '-g',
      'g',
      '--',
      'sh',
      '-c',
      `echo started; until [ -e ${go} ]; do sleep 0.05; done`,
    ]);
    workers.push(run);
    let out = '';
    let err = '';
    run.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    run.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    await waitFor(() => out.includes('started'), 'the command started', 20_000);
    await cli(['gate', 'set', 'g', '--min-free-memory', '100000g'], { db });
    await waitFor(() => /task \d+ paused: its machine gate closed/.test(err), 'the pause said', 20_000);
    await cli(['gate', 'set', 'g', '--min-free-memory', '1m'], { db });
    await waitFor(() => /task \d+ continued after/.test(err), 'the continue said', 20_000);
    fs.writeFileSync(go, '');
    expect(await exited(run)).toBe(0);
  }, 60_000);

  it('refuses bad values in one line naming the option', async () => {
    const db = freshDb();
    const bad = await cli(['gate', 'set', 'backups', '--min-free-memory', 'lots'], { db });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim()).toBe(
      'semaforo: --min-free-memory: "lots" is not a size (512m, 1g, 2GiB) or none',
    );
    const load = await cli(['gate', 'set', '--max-load', '0'], { db });
    expect(load.stderr).toContain('--max-load: must be a load per core from 0.01 to 1000');
    const idle = await cli(['gate', 'set', 'indexing', '--when-idle', 'soon'], { db });
    expect(idle.stderr.trim()).toBe(
      'semaforo: --when-idle: "soon" is not a duration; use forms like 500ms, 30s, 5m, 2h, 1d or 1h30m',
    );
    expect((await cli(['gate', 'set', '--when-idle', '0s'], { db })).stderr.trim()).toBe(
      'semaforo: --when-idle: must be an idle time from 1s to 365d (ms in JSON)',
    );
    expect((await cli(['gate', 'remove', 'backups'], { db })).stderr).toContain(
      'group "backups" has no gate',
    );
  });
});
