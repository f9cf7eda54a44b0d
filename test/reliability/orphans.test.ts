/**
 * A task never runs twice at once, even when the worker running it dies or stops listening:
 * - a SIGKILLed worker's shell task (a whole tree, a setsid'ed grandchild included) is stopped
 *   and gone before the task runs again, and its slot stays taken until then;
 * - a JS handler that ignores its abort keeps its slot until it really returns;
 * - a worker whose event loop is blocked past its lease keeps its task: nothing else runs it.
 * The tasks write their own timestamps; the runs they show must not overlap.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import { cli, freshDb, startCli } from '../cli/cli-helpers.ts';
import { exited, spawnReady, tempDir, testEngine, waitFor } from '../helpers.ts';
import { readJsonLines } from '../core/fixtures/probe.ts';
import { hasEnded } from '../../electron/core/handlers/attempt-tag.ts';

interface Span {
  id: string;
  from: number;
  to: number;
}

/** The spans of each run, from lines "ID TIME" (any order), sorted by start. */
function spans(lines: readonly [string, number][]): Span[] {
  const by = new Map<string, Span>();
  for (const [id, at] of lines) {
    const s = by.get(id) ?? { id, from: at, to: at };
    s.from = Math.min(s.from, at);
    s.to = Math.max(s.to, at);
    by.set(id, s);
  }
  return [...by.values()].sort((a, b) => a.from - b.from);
}

function overlaps(list: readonly Span[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < list.length; i++) {
    const [a, b] = [list[i - 1]!, list[i]!];
    if (b.from <= a.to) out.push(`${b.id} started ${a.to - b.from} ms before ${a.id} ended`);
  }
  return out;
}

// Beats every 100 ms for ~8 s, in itself and in a setsid'ed grandchild (out of its process
// group), each line naming the run (the first shell's pid) and the time in ns. Long enough that
// the grandchild still runs when the next worker starts on a loaded machine, so its reaper
// must be the one that stops it.
const SCRIPT = `
log=$1; run=\${3:-$$}
if [ "$2" != child ]; then setsid sh "$0" "$log" child "$run" & fi
n=0
while [ $n -lt 80 ]; do echo "$run $(date +%s%N)" >> "$log"; sleep 0.1; n=$((n+1)); done
wait
`;

const beats = (log: string): [string, number][] =>
  fs.existsSync(log)
    ? fs
        .readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' '))
        .map(([id, ns]) => [id!, Number(ns) / 1e6])
    : [];

describe('a task never runs twice at once', () => {
  it('a SIGKILLed worker’s shell task tree is stopped before the task runs again; its slot stays taken', async () => {
    const db = freshDb();
    const dir = path.dirname(db);
    const script = path.join(dir, 'beat.sh');
    const log = path.join(dir, 'beats.log');
    fs.writeFileSync(script, SCRIPT);
    expect((await cli(['group', 'set', 'solo', '--concurrency', '1'], { db })).code).toBe(0);
    for (let i = 0; i < 2; i++)
      expect((await cli(['enqueue', '--group', 'solo', '--', 'sh', script, log], { db })).code).toBe(0);

    const first = await startCli(['work'], db, 'dispatching from');
    await waitFor(
      () => new Set(beats(log).map(([id]) => id)).size === 1 && beats(log).length >= 4,
      'first beats',
    );
    first.kill('SIGKILL');
    await exited(first);

    const drain = await cli(['work', '--drain'], { db });
    expect(drain.code, drain.stderr).toBe(0);
    const runs = spans(beats(log));
    expect(overlaps(runs)).toEqual([]);
    expect(runs).toHaveLength(3); // the killed run, its retry, the other task
    expect(drain.stderr).toMatch(/left \d+ process\(es\) of its tasks running .*stopping them/);
    const tasks = JSON.parse((await cli(['--json', 'list'], { db })).stdout) as { status: string }[];
    expect(tasks.map((t) => t.status)).toEqual(['done', 'done']);
  });

  it('a shell task’s command dies with its SIGKILLed worker (Linux: setpriv --pdeathsig)', async (t) => {
    if (process.platform !== 'linux' || !fs.existsSync('/usr/bin/setpriv')) {
      process.stdout.write('skipped: no setpriv here (the next worker still stops the tree)\n');
      return t.skip();
    }
    const db = freshDb();
    const pidFile = path.join(path.dirname(db), 'pid');
    const line = `echo $$ > ${pidFile}; exec sleep 60`;
    expect((await cli(['enqueue', '--', 'sh', '-c', line], { db })).code).toBe(0);
    const worker = await startCli(['work'], db, 'dispatching from');
    const pid = await waitFor(
      () => fs.existsSync(pidFile) && Number(fs.readFileSync(pidFile, 'utf8')),
      'pid',
    );
    worker.kill('SIGKILL');
    await exited(worker);
    // No other worker runs: only the kernel can have ended it.
    await waitFor(() => hasEnded(pid), `the command (pid ${pid}) to end with its worker`, 10_000);
  });

  it('a JS handler that ignores its abort keeps its slot until it returns', async () => {
    const runs: Span[] = [];
    const stubborn = defineHandler({
      kind: 'stubborn',
      description: '',
      payload: z.object({ ms: z.number() }),
      run: async ({ ms }, { task }) => {
        const from = Date.now();
        await new Promise((r) => setTimeout(r, ms)); // does not listen to its signal
        runs.push({ id: String(task.id), from, to: Date.now() });
      },
    });
    const warnings: string[] = [];
    const engine = await testEngine({
      handlers: [stubborn],
      abortGraceMs: 50,
      logger: { info: () => {}, warn: (m) => warnings.push(m), error: () => {} },
    });
    await engine.updateSettings({ globalConcurrency: 1 });
    const a = (await engine.enqueue({ kind: 'stubborn', timeout: 50, maxAttempts: 1, payload: { ms: 1500 } }))
      .task;
    const b = (await engine.enqueue({ kind: 'stubborn', maxAttempts: 1, payload: { ms: 10 } })).task;
    engine.start();
    await waitFor(
      async () => (await engine.getTask(b.id)).status === 'done' && runs.length === 2,
      'both ended',
    );
    expect(overlaps(runs.sort((x, y) => x.from - y.from))).toEqual([]);
    const ta = await engine.getTask(a.id);
    expect([ta.status, ta.history.map((h) => h.outcome)]).toEqual(['failed', ['timeout']]);
    expect(warnings.join('\n')).toMatch(/ignored its abort .* its slot stays taken until it returns/);
    await engine.stop();
  });

  it('a JS handler that ignores its abort on stop keeps its lease until it returns', async () => {
    const file = path.join(tempDir(), 'queue.db');
    const runs: Span[] = [];
    let returned = 0;
    const stubborn = defineHandler({
      kind: 'stubborn',
      description: '',
      payload: z.object({ ms: z.number() }),
      run: async ({ ms }, { task }) => {
        const from = Date.now();
        await new Promise((r) => setTimeout(r, ms)); // does not listen to its signal
        runs.push({ id: String(task.id), from, to: Date.now() });
        returned++;
      },
    });
    const warnings: string[] = [];
    const quiet = { info: () => {}, warn: (m: string) => warnings.push(m), error: () => {} };
    const first = await testEngine({ file, handlers: [stubborn], abortGraceMs: 50, logger: quiet });
    const t = (await first.enqueue({ kind: 'stubborn', payload: { ms: 2500 } })).task;
    first.start();
    await waitFor(async () => (await first.getTask(t.id)).status === 'running', 'the task to start');
    await first.stop(0);
    expect(warnings.join('\n')).toMatch(/ignored its abort on stop: its lease is kept until it returns/);
    expect(returned).toBe(0);
    // Another worker in this process (the tray app switching queues, say) may not take it while
    // the first handler still runs; once that returns, the lease goes back and it runs again.
    const second = await testEngine({ file, handlers: [stubborn], logger: quiet });
    second.start();
    await waitFor(() => runs.length === 2, 'the task to run again after its first handler returned', 30_000);
    expect(overlaps(runs)).toEqual([]);
    expect((await second.getTask(t.id)).status).toBe('done');
    await second.stop();
  });

  it('a worker whose event loop blocks past its lease keeps its task: nothing runs it beside', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'queue.db');
    const log = path.join(dir, 'runs.jsonl');
    const block = defineHandler({
      kind: 'block',
      description: '',
      payload: z.object({ ms: z.number() }),
      run: async (_p, { task }) => {
        fs.appendFileSync(
          log,
          JSON.stringify({ ev: 'start', id: task.id, pid: process.pid, at: Date.now() }) + '\n',
        );
        fs.appendFileSync(
          log,
          JSON.stringify({ ev: 'end', id: task.id, pid: process.pid, at: Date.now() }) + '\n',
        );
      },
    });
    const here = await testEngine({ file: db, handlers: [block], leaseMs: 300, reapIntervalMs: 50 });
    await here.updateSettings({ globalConcurrency: 1 });
    const a = (await here.enqueue({ kind: 'block', payload: { ms: 2500 } })).task;
    await here.enqueue({ kind: 'block', payload: { ms: 0 } });
    const child = await spawnReady([
      path.join(import.meta.dirname, 'fixtures', 'blocking-worker.ts'),
      db,
      log,
    ]);
    type Ev = { ev: string; id: number; pid: number; at: number };
    await waitFor(() => fs.existsSync(log) && readJsonLines<Ev>(log).some((e) => e.id === a.id), 'a started');
    here.start(); // a reaper beside the blocked worker, with the same short lease
    await waitFor(async () => (await here.stats(0)).counts.done === 2, 'both done');
    child.kill('SIGKILL');
    await exited(child);
    const evs = readJsonLines<Ev>(log);
    const runs = spans(evs.map((e) => [`${e.id}@${e.pid}`, e.at]));
    expect(runs.map((r) => r.id.split('@')[0])).toEqual([String(a.id), String(a.id + 1)]);
    expect(overlaps(runs)).toEqual([]);
    expect((await here.getTask(a.id)).history.map((h) => h.outcome)).toEqual(['done']);
    await here.stop();
  });
});
