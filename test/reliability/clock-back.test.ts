/**
 * The wall clock stepping an hour back under a running worker must neither freeze the queue nor
 * flood it: a rate-limited group keeps starting at its rate, tasks that were due stay due (and a
 * delayed one keeps its wait), a schedule keeps firing. With injected clocks here; under
 * libfaketime, a real `semaforo work` process, in clock-back-faketime.test.ts.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Clock } from '../../electron/core/clock.ts';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import { tempDir, testEngine, waitFor } from '../helpers.ts';

const HOUR = 3600_000;

function steppable(): Clock & { jump: (ms: number) => void } {
  let offset = 0;
  return { now: () => Date.now() + offset, jump: (ms) => (offset += ms) };
}

const quick = defineHandler({ kind: 'quick', description: '', payload: z.object({}), run: async () => 'ok' });

describe('the wall clock steps an hour back', () => {
  it('a 2/s group keeps starting at its rate: no freeze, no burst', async () => {
    const clock = steppable();
    const engine = await testEngine({ handlers: [quick], clock, reapIntervalMs: 100 });
    await engine.updateGroup('api', { rate: { limit: 2, periodMs: 1000 } });
    const four = async () => {
      const tasks: { id: number }[] = [];
      for (let i = 0; i < 4; i++)
        tasks.push((await engine.enqueue({ kind: 'quick', group: 'api', payload: {} })).task);
      return tasks;
    };
    const allDone = async (tasks: { id: number }[]) =>
      (await Promise.all(tasks.map((t) => engine.getTask(t.id)))).every((t) => t.status === 'done');
    const before = await four();
    engine.start();
    await waitFor(() => allDone(before), 'the first four');
    clock.jump(-HOUR);
    const after = await four();
    await waitFor(() => allDone(after), 'four more after the step');
    const starts = (await Promise.all([...before, ...after].map((t) => engine.getTask(t.id))))
      .map((t) => t.history.find((h) => h.type === 'attempt')!.startedAt)
      .sort((a, b) => a - b);
    // At most 2 starts in any second, across the step too.
    for (let i = 2; i < starts.length; i++) expect(starts[i]! - starts[i - 2]!).toBeGreaterThanOrEqual(1000);
    await engine.stop();
  });

  it('tasks that were due stay due, and a delayed one still waits', async () => {
    const clock = steppable();
    const file = path.join(tempDir(), 'q.db');
    const enqueuer = await testEngine({ file, handlers: [quick], clock });
    const due: { id: number }[] = [];
    for (let i = 0; i < 3; i++) due.push((await enqueuer.enqueue({ kind: 'quick', payload: {} })).task);
    const delayed = (await enqueuer.enqueue({ kind: 'quick', payload: {}, delay: 60_000 })).task;
    clock.jump(-HOUR);
    const worker = await testEngine({ file, handlers: [quick], clock, reapIntervalMs: 100 });
    worker.start();
    await waitFor(
      async () => (await Promise.all(due.map((t) => worker.getTask(t.id)))).every((t) => t.status === 'done'),
      'the due tasks',
    );
    const d = await worker.getTask(delayed.id);
    expect(d.status).toBe('pending');
    // It keeps (about) the wait it had left: not an hour more, not none.
    expect(d.runAt - clock.now()).toBeGreaterThan(30_000);
    expect(d.runAt - clock.now()).toBeLessThanOrEqual(60_000);
    await worker.stop();
  });

  it('an every-1s schedule keeps firing', async () => {
    const clock = steppable();
    const engine = await testEngine({
      handlers: [quick],
      clock,
      reapIntervalMs: 100,
      scheduleIntervalMs: 100,
    });
    await engine.createSchedule({ name: 'beat', everyMs: 1000, task: { kind: 'quick', payload: {} } });
    engine.start();
    const fired = async () => (await engine.listTasks({ limit: 100 })).tasks.length;
    await waitFor(async () => (await fired()) >= 2, 'two fires');
    clock.jump(-HOUR);
    const at = await fired();
    await waitFor(async () => (await fired()) >= at + 2, 'two fires after the step');
    await engine.stop();
  });

  it('a task enqueued and run right after the step does not hide it from the rebase', async () => {
    const clock = steppable();
    // The reaper looks only every 2 s, so the task below is claimed and stamped on the new
    // timeline first: the newest task and attempt then look current.
    const engine = await testEngine({
      handlers: [quick],
      clock,
      reapIntervalMs: 2000,
      scheduleIntervalMs: 100,
    });
    await engine.createSchedule({ name: 'beat', everyMs: 1000, task: { kind: 'quick', payload: {} } });
    engine.start();
    const fired = async () => (await engine.listTasks({ group: 'default', limit: 100 })).tasks.length;
    await waitFor(async () => (await fired()) >= 1, 'a first fire');
    clock.jump(-HOUR);
    const now = (await engine.enqueue({ kind: 'quick', group: 'other', payload: {} })).task;
    await waitFor(async () => (await engine.getTask(now.id)).status === 'done', 'the task after the step');
    const at = await fired();
    await waitFor(async () => (await fired()) >= at + 2, 'two fires after the step');
    await engine.stop();
  });
});
