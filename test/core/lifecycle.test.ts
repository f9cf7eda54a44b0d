import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import type { ChangeBatch } from '../../electron/core/events.ts';
import { PermanentError } from '../../electron/core/errors.ts';
import { testEngine, waitFor } from '../helpers.ts';

/** Runs until its signal aborts, or for `ms` if given; `fail` makes it a permanent failure. */
const slow = defineHandler({
  kind: 'slow',
  description: 'test kind',
  payload: z.object({ ms: z.number(), fail: z.boolean().optional() }),
  run: async ({ ms, fail }, { signal, log }) => {
    log('working');
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(t);
        reject(signal.reason as Error);
      });
    });
    if (fail) throw new PermanentError('broken on purpose');
    return { slept: ms };
  },
});

describe('engine lifecycle', () => {
  it('stops gracefully: finishes what ends before the deadline and releases the rest to the queue', async () => {
    const engine = await testEngine({ handlers: [slow] });
    const quick = (await engine.enqueue({ kind: 'slow', payload: { ms: 20 } })).task;
    const long = (await engine.enqueue({ kind: 'slow', payload: { ms: 60_000 } })).task;
    engine.start();
    await waitFor(async () => (await engine.stats()).counts.running === 2, 'both running');
    await engine.stop(300);
    expect((await engine.getTask(quick.id)).status).toBe('done');
    const released = await engine.getTask(long.id);
    // back to the queue for another process, and the interrupted attempt does not count
    expect(released.status).toBe('pending');
    expect(released.attempts).toBe(0);
    expect(released.history.at(-1)!.outcome).toBe('released');
    expect((await engine.stats()).counts.running).toBe(0);
  });

  it('coalesces a burst of changes into a few events that name the tasks', async () => {
    const engine = await testEngine({ handlers: [slow], eventIntervalMs: 100 });
    const batches: ChangeBatch[] = [];
    engine.onChange((b) => batches.push(b));
    const tasks = await engine.enqueueMany(
      Array.from({ length: 500 }, () => ({ kind: 'sleep', payload: { ms: 0 } })),
    );
    await engine.updateSettings({ globalConcurrency: 50 });
    engine.start();
    await waitFor(async () => (await engine.stats()).counts.done === 500, 'all done');
    await waitFor(
      () => batches.flatMap((b) => b.taskIds).includes(tasks.at(-1)!.task.id),
      'last task reported',
    );
    // 500 tasks x (enqueue, start, finish) became a handful of batches, not 1,500 events
    expect(batches.length).toBeGreaterThan(0);
    expect(batches.length).toBeLessThan(50);
    const seen = new Set(batches.flatMap((b) => b.taskIds));
    for (const t of tasks) expect(seen.has(t.task.id)).toBe(true);
    await engine.stop();
  });

  it('reports throughput, failure rate and duration percentiles per kind and group', async () => {
    const engine = await testEngine({ handlers: [slow] });
    await engine.updateSettings({ globalConcurrency: 10 });
    await engine.enqueueMany([
      ...Array.from({ length: 6 }, () => ({ kind: 'slow', group: 'vendor', payload: { ms: 10 } })),
      ...Array.from({ length: 2 }, () => ({ kind: 'slow', group: 'vendor', payload: { ms: 1, fail: true } })),
      ...Array.from({ length: 4 }, () => ({ kind: 'sleep', group: 'local', payload: { ms: 0 } })),
    ]);
    engine.start();
    await waitFor(
      async () => (await engine.stats()).counts.done + (await engine.stats()).counts.failed === 12,
      'all finished',
    );
    const m = await engine.metrics(60_000);
    const vendor = m.byGroup.find((r) => r.key === 'vendor')!;
    expect(vendor).toMatchObject({ finished: 8, done: 6, failed: 2 });
    expect(vendor.failureRate).toBeCloseTo(0.25);
    expect(vendor.throughput).toBeCloseTo(8 / 60);
    expect(vendor.p50Ms).toBeGreaterThanOrEqual(1);
    expect(vendor.p95Ms).toBeGreaterThanOrEqual(vendor.p50Ms!);
    expect(m.byKind.find((r) => r.key === 'sleep')).toMatchObject({ finished: 4, done: 4, failed: 0 });
    // a failure keeps its error and the handler's log in the attempt history
    const failed = (await engine.listTasks({ status: ['failed'], limit: 10 })).tasks[0]!;
    const detail = await engine.getTask(failed.id);
    expect(detail.error).toMatch(/broken on purpose/);
    expect(detail.history[0]!.output).toMatch(/working/);
    expect((await engine.stats()).recentFailures.map((t) => t.id)).toContain(failed.id);
    await engine.stop();
  });

  it('ships the sleep kind, which validates its payload', async () => {
    const engine = await testEngine();
    await expect(engine.enqueue({ kind: 'sleep', payload: { ms: -1 } })).rejects.toThrow(/payload\.ms/);
    await expect(engine.enqueue({ kind: 'nope', payload: {} })).rejects.toThrow(/kind.*nope/);
    const { task } = await engine.enqueue({ kind: 'sleep', payload: { ms: 30 } });
    engine.start();
    const done = await waitFor(
      async () => (await engine.getTask(task.id)).status === 'done' && (await engine.getTask(task.id)),
      'done',
    );
    expect(done.finishedAt! - done.startedAt!).toBeGreaterThanOrEqual(25);
    await engine.stop();
  });
});
