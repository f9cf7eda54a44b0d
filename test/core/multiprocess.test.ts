import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../electron/core/engine.ts';
import { exited, spawnReady, tempDir, waitFor } from '../helpers.ts';
import { peakOverlap, probeHandler, readProbeLog as readLog, runIntervals } from './fixtures/probe.ts';

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'worker.ts');

/** A local engine that only enqueues and inspects (no dispatcher), as a CLI would. */
function controller(db: string) {
  return createEngine({
    file: db,
    // The workers' own kind, so the payload is validated by the same schema (a narrower one
    // stripped `gate`); this engine never dispatches, so the log is never written.
    handlers: [probeHandler('/dev/null', 'controller')],
  });
}

function startWorker(db: string, log: string, label: string, env: Record<string, string> = {}) {
  return spawnReady([WORKER, db, log, label], env);
}

describe('two worker processes on one file', () => {
  it('never exceed a group concurrency limit or a rate limit between them', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'q.db');
    const log = path.join(dir, 'log.jsonl');
    const c = await controller(db);
    await c.updateSettings({ globalConcurrency: 10 });
    await c.updateGroup('one', { concurrency: 1 });
    await c.updateGroup('rated', { rate: { limit: 4, periodMs: 500 } });
    // Two gate tasks at priority 0 go first and each waits until both have started; with one slot
    // per worker, that forces each process to take one, so the limits below are really shared.
    await c.enqueueMany([
      ...Array.from({ length: 2 }, () => ({
        kind: 'probe',
        group: 'gate',
        priority: 0,
        payload: { ms: 0, gate: 2 },
      })),
      ...Array.from({ length: 12 }, () => ({ kind: 'probe', group: 'one', payload: { ms: 30 } })),
      ...Array.from({ length: 12 }, () => ({ kind: 'probe', group: 'rated', payload: { ms: 5 } })),
    ]);
    const a = await startWorker(db, log, 'A', { MAX_IN_FLIGHT: '1' });
    const b = await startWorker(db, log, 'B', { MAX_IN_FLIGHT: '1' });
    await waitFor(async () => (await c.stats()).counts.done === 26, '26 done', 30_000);
    const lines = readLog(log);
    expect(new Set(lines.filter((l) => l.group === 'gate').map((l) => l.pid)).size).toBe(2);
    expect(peakOverlap(runIntervals(lines.filter((l) => l.group === 'one')))).toBe(1);
    // The rate limit governs claims; each claim's time is in the attempt history the workers wrote.
    const ratedTasks = (await c.listTasks({ group: 'rated', limit: 100 })).tasks;
    const rated = (await Promise.all(ratedTasks.map((t) => c.getTask(t.id))))
      .flatMap((t) => t.history.map((h) => h.startedAt))
      .sort((x, y) => x - y);
    expect(rated).toHaveLength(12);
    for (let i = 4; i < rated.length; i++) {
      // any 5 consecutive starts span at least the 500 ms window
      expect(rated[i]! - rated[i - 4]!).toBeGreaterThanOrEqual(500);
    }
    a.kill('SIGTERM');
    b.kill('SIGTERM');
    expect(await exited(a)).toBe(0);
    expect(await exited(b)).toBe(0);
    await c.close();
  });

  it('a task whose worker is SIGKILLed mid-run goes back to the queue and finishes once in another', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'q.db');
    const log = path.join(dir, 'log.jsonl');
    const c = await controller(db);
    const { task } = await c.enqueue({ kind: 'probe', payload: { ms: 1500 } });
    const victim = await startWorker(db, log, 'victim', { LEASE_MS: '3000' });
    await waitFor(() => readLog(log).some((l) => l.ev === 'start'), 'victim started the task');
    victim.kill('SIGKILL');
    await exited(victim);
    expect((await c.getTask(task.id)).status).toBe('running');
    const rescuer = await startWorker(db, log, 'rescuer', { LEASE_MS: '3000' });
    const t = await waitFor(
      async () => (await c.getTask(task.id)).status === 'done' && (await c.getTask(task.id)),
      'done',
      20_000,
    );
    const lines = readLog(log);
    expect(lines.filter((l) => l.ev === 'start')).toHaveLength(2);
    expect(lines.filter((l) => l.ev === 'end')).toHaveLength(1);
    expect(t.attempts).toBe(2);
    expect(t.result).toEqual({ by: 'rescuer' });
    expect(t.history.map((h) => h.outcome)).toEqual(['lost', 'done']);
    expect(t.history[0]!.error).toMatch(/lease lost/);
    expect((await c.stats()).counts.running).toBe(0);
    rescuer.kill('SIGTERM');
    await exited(rescuer);
    await c.close();
  });

  it('a task enqueued by another process starts promptly (data_version wake-up, no idle sleep)', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'q.db');
    const log = path.join(dir, 'log.jsonl');
    const c = await controller(db);
    const w = await startWorker(db, log, 'W');
    const { task } = await c.enqueue({ kind: 'probe', payload: { ms: 0 } });
    await waitFor(async () => (await c.getTask(task.id)).status === 'done', 'done');
    const started = readLog(log).find((l) => l.ev === 'start')!.t;
    // Not a speed assertion: the seed script slept 2 s between polls; this must not.
    expect(started - task.createdAt).toBeLessThan(1000);
    w.kill('SIGTERM');
    await exited(w);
    await c.close();
  });
});
