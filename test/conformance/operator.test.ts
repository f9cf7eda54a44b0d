/** What an operator does to tasks, groups and settings, and what each action refuses. */
import { describe, expect, it } from 'vitest';
import {
  A,
  B,
  backends,
  claim,
  done,
  ended,
  finish,
  freshQueue,
  names,
  retryFailed,
  task,
  tasks,
} from './harness.ts';
import type { Store } from './harness.ts';

/** Tasks in every status: pending, running, retrying, done, failed, cancelled (by name). */
async function oneOfEach(store: Store) {
  const out = await store.enqueue(
    ['running', 'retrying', 'done', 'failed', 'cancelled', 'pending'].map((name, i) =>
      task({ name, priority: i, group: i % 2 ? 'odd' : 'even', kind: i < 3 ? 'sleep' : 'shell' }),
    ),
    0,
  );
  const [running, retrying, doneOne, failed, cancelled] = await claim(store, A, 5, 10);
  await finish(
    store,
    A,
    20,
    ended(retrying!, 'retrying', 'retry', { runAt: 60_000 }),
    done(doneOne!),
    ended(failed!, 'failed', 'failed', { error: 'boom' }),
    ended(cancelled!, 'cancelled', 'cancelled'),
  );
  const id = Object.fromEntries(out.map((r) => [r.task.name, r.task.id]));
  expect(running!.task.id).toBe(id.running);
  return id as Record<'pending' | 'running' | 'retrying' | 'done' | 'failed' | 'cancelled', number>;
}

describe.each(backends)('operator actions on $name', (backend) => {
  it('retries failed, cancelled and retrying tasks from scratch, skips pending ones, refuses the rest', async () => {
    const { store } = await freshQueue(backend);
    const id = await oneOfEach(store);
    expect(await store.retry([id.failed, id.cancelled, id.retrying, id.pending], 30)).toEqual([
      id.failed,
      id.cancelled,
      id.retrying,
    ]);
    for (const t of [id.failed, id.cancelled, id.retrying]) {
      const got = (await store.getTask(t))!;
      expect(got).toMatchObject({ status: 'pending', attempts: 0, runAt: 30, finishedAt: null });
      expect(got.history.at(-1)).toMatchObject({ type: 'action', outcome: 'retried', startedAt: 30 });
    }
    await expect(store.retry([id.running], 31)).rejects.toMatchObject({ name: 'ConflictError' });
    await expect(store.retry([id.done], 31)).rejects.toMatchObject({ name: 'ConflictError' });
    await expect(store.retry([9999], 31)).rejects.toMatchObject({ name: 'NotFoundError' });
  });

  it('retries every failed task, or those of one group or kind', async () => {
    const { store } = await freshQueue(backend);
    const out = await store.enqueue(
      [
        task({ group: 'g1', kind: 'shell' }),
        task({ group: 'g1' }),
        task({ group: 'g2' }),
        task({ group: 'g2' }),
      ],
      0,
    );
    const claimed = await claim(store, A, 4, 10);
    await finish(store, A, 20, ...claimed.slice(0, 3).map((c) => ended(c, 'failed', 'failed')));
    const [k1, g1, g2] = out.map((r) => r.task.id);
    expect(await retryFailed(store, { kind: 'shell' }, 30)).toEqual([k1]);
    expect(await retryFailed(store, { group: 'g2' }, 30)).toEqual([g2]);
    expect(await retryFailed(store, {}, 30)).toEqual([g1]);
    expect(await retryFailed(store, {}, 30)).toEqual([]);
    expect((await store.stats(30, 0)).counts).toMatchObject({ pending: 3, running: 1, failed: 0 });
  });

  it('cancels waiting tasks at once and only asks for running ones; finished ones stay', async () => {
    const { store } = await freshQueue(backend);
    const id = await oneOfEach(store);
    expect(await store.cancel([id.pending, id.retrying, id.running, id.done], 30)).toEqual({
      cancelled: [id.pending, id.retrying],
      requested: [id.running],
    });
    expect(await store.getTask(id.pending)).toMatchObject({ status: 'cancelled', finishedAt: 30 });
    expect((await store.getTask(id.pending))!.history.at(-1)).toMatchObject({
      type: 'action',
      outcome: 'cancelled',
    });
    // The slot stays taken until the worker has stopped the handler.
    expect(await store.getTask(id.running)).toMatchObject({ status: 'running', cancelRequested: true });
    expect((await store.getTask(id.done))!.status).toBe('done');
    await expect(store.cancel([9999], 31)).rejects.toMatchObject({ name: 'NotFoundError' });
  });

  it('deletes tasks with their history, but never a running one', async () => {
    const { store } = await freshQueue(backend);
    const id = await oneOfEach(store);
    expect(await store.remove([id.done, id.failed, 9999])).toEqual([id.done, id.failed]);
    expect(await store.getTask(id.done)).toBeNull();
    await expect(store.remove([id.pending, id.running])).rejects.toMatchObject({ name: 'ConflictError' });
    // All or nothing: the pending task named before the running one is still there.
    expect(await store.getTask(id.pending)).not.toBeNull();
    expect((await store.stats(40, 0)).counts).toMatchObject({ done: 0, failed: 0, pending: 1 });
  });

  it('changes a priority, records it, and claims in the new order', async () => {
    const { store } = await freshQueue(backend);
    const [, second] = await store.enqueue(tasks(2, { priority: 5 }), 0);
    const changed = await store.setPriority(second!.task.id, 0, 5);
    expect(changed).toMatchObject({ id: second!.task.id, priority: 0 });
    expect((await store.getTask(second!.task.id))!.history).toEqual([
      expect.objectContaining({ type: 'action', outcome: 'priority', startedAt: 5 }),
    ]);
    expect(names(await claim(store, A, 1, 10))).toEqual(['t1']);
    await expect(store.setPriority(9999, 1, 5)).rejects.toMatchObject({ name: 'NotFoundError' });
  });

  it('creates and updates a group, and a removed rate limit stops limiting', async () => {
    const { store } = await freshQueue(backend);
    const g = await store.updateGroup('vendor', { concurrency: 2, rate: { limit: 1, periodMs: 60_000 } });
    expect(g).toMatchObject({
      name: 'vendor',
      concurrency: 2,
      rate: { limit: 1, periodMs: 60_000 },
      paused: false,
    });
    expect(await store.updateGroup('vendor', { paused: true })).toMatchObject({
      concurrency: 2,
      paused: true,
    });
    await store.updateGroup('vendor', { paused: false });
    await store.enqueue(tasks(3, { group: 'vendor' }), 0);
    expect(await claim(store, A, 10, 10)).toHaveLength(1);
    expect(await store.updateGroup('vendor', { rate: null, concurrency: null })).toMatchObject({
      rate: null,
      concurrency: null,
    });
    expect(await claim(store, B, 10, 11)).toHaveLength(2);
  });

  it('updates the settings it is given and keeps the others', async () => {
    const { store } = await freshQueue(backend);
    const before = await store.settings();
    const after = await store.updateSettings({
      retentionDays: 7,
      notifications: { groups: ['vendor'] },
      failureWebhook: 'https://example.com/hook',
    });
    expect(after).toEqual({
      ...before,
      retentionDays: 7,
      notifications: { enabled: before.notifications.enabled, groups: ['vendor'] },
      failureWebhook: 'https://example.com/hook',
    });
    expect(await store.settings()).toEqual(after);
    expect(
      await store.updateSettings({ failureWebhook: null, notifications: { groups: null } }),
    ).toMatchObject({
      failureWebhook: null,
      notifications: { groups: null },
    });
  });

  it('does not retry a task whose unique key an unfinished task holds again, and says which', async () => {
    const { store } = await freshQueue(backend);
    const [keyed, plain] = await store.enqueue(
      [task({ unique: 'nightly', maxAttempts: 1 }), task({ maxAttempts: 1 })],
      0,
    );
    await finish(store, A, 20, ...(await claim(store, A, 2, 10)).map((c) => ended(c, 'failed', 'failed')));
    const [holder] = await store.enqueue([task({ unique: 'nightly' })], 30);
    await expect(store.retry([keyed!.task.id], 40)).rejects.toMatchObject({
      name: 'ConflictError',
      message: expect.stringContaining(`held by task ${holder!.task.id}`),
    });
    // Every other failed task is retried; that one stays failed, as it was.
    expect(await retryFailed(store, {}, 40)).toEqual([plain!.task.id]);
    expect(await store.getTask(keyed!.task.id)).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('takes fractional times (a Retry-After of 1.5 s, performance.now) in actions and reads', async () => {
    const { store } = await freshQueue(backend);
    const [, , c] = await store.enqueue(tasks(3, { maxAttempts: 1 }), 0);
    const [a, b] = await claim(store, A, 2, 10);
    await finish(store, A, 20.4, ended(a!, 'failed', 'failed'));
    await finish(store, A, 20.6, done(b!));
    const near = (x: number | null | undefined, want: number) => Math.abs((x ?? NaN) - want) <= 1;
    expect((await store.failedSince({ at: 0.5, id: 0 }, 10)).map((t) => t.id)).toEqual([a!.task.id]);
    expect((await store.metrics(40.5, 1000.5)).byKind[0]).toMatchObject({ finished: 2, failed: 1 });
    expect((await store.stats(40.5, 5)).recentFailures.map((t) => t.id)).toEqual([a!.task.id]);
    expect(await store.cancel([c!.task.id], 30.5)).toEqual({ cancelled: [c!.task.id], requested: [] });
    expect(near((await store.getTask(c!.task.id))!.finishedAt, 30.5)).toBe(true);
    // Only what ended before 20.5 goes: the failure at 20.4, not the success at 20.6.
    expect(await store.purgeFinished(20.5)).toBe(1);
    expect(await store.retry([c!.task.id], 31.5)).toEqual([c!.task.id]);
    expect(near((await store.getTask(c!.task.id))!.runAt, 31.5)).toBe(true);
  });

  it('connections retrying the same failed tasks at once retry each one once', async () => {
    const q = await freshQueue(backend);
    const other = await q.connect();
    await q.store.enqueue(tasks(6, { maxAttempts: 1 }), 0);
    const claimed = await claim(q.store, A, 6, 10);
    await finish(q.store, A, 20, ...claimed.map((c) => ended(c, 'failed', 'failed')));
    const [mine, theirs] = await Promise.all([retryFailed(q.store, {}, 30), retryFailed(other, {}, 30)]);
    expect([...mine!, ...theirs!].sort((a, b) => a - b)).toEqual(claimed.map((c) => c.task.id));
    for (const c of claimed) {
      const h = (await q.store.getTask(c.task.id))!.history;
      expect(h.filter((e) => e.outcome === 'retried')).toHaveLength(1);
    }
  });

  it('connections retrying two failed tasks that share a unique key at once: one wins, the other is told who', async () => {
    const q = await freshQueue(backend);
    const other = await q.connect();
    const failOne = async (key: string) => {
      const [t] = await q.store.enqueue([task({ unique: key, group: key, maxAttempts: 1 })], 0);
      await finish(
        q.store,
        A,
        20,
        ...(await claim(q.store, A, 1, 10)).map((c) => ended(c, 'failed', 'failed')),
      );
      return t!.task.id;
    };
    // Either may win, and a race is lost on only some tries: rounds, each on a key of its own.
    for (let round = 0; round < 12; round++) {
      const key = `nightly-${round}`;
      const [a, b] = [await failOne(key), await failOne(key)];
      const results = await Promise.allSettled([q.store.retry([a], 30), other.retry([b], 30)]);
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
      expect(won).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected');
      expect(lost?.reason).toMatchObject({
        name: 'ConflictError',
        message: expect.stringContaining(`held by task ${won[0]}`),
      });
      // An enqueue of the key racing retryFailed: one unfinished task holds it, whichever came first.
      await q.store.cancel(won, 40);
      const [retried, [enqueued]] = await Promise.all([
        retryFailed(q.store, { group: key }, 50),
        other.enqueue([task({ unique: key, group: key })], 50),
      ]);
      const holders = (await q.store.listTasks({ status: ['pending'], group: key })).tasks;
      expect(holders.map((t) => t.id)).toEqual([enqueued!.task.id]);
      // the retried task holds it (the enqueue got it back), or the new task (the retry skipped b)
      expect(enqueued!.created).toBe(!retried.includes(enqueued!.task.id));
      // the next round claims only its own tasks
      await q.store.cancel([enqueued!.task.id], 60);
    }
  });

  it('a cancel racing a claim either cancels the task or asks its new worker to stop it', async () => {
    const q = await freshQueue(backend);
    const other = await q.connect();
    for (let round = 0; round < 10; round++) {
      // the only claimable task: those of earlier rounds are cancelled or running
      const [r] = await q.store.enqueue([task({ name: `r${round}` })], 0);
      const id = r!.task.id;
      const [cancelled, claimed] = await Promise.all([q.store.cancel([id], 5), claim(other, B, 1, 5)]);
      const t = (await q.store.getTask(id))!;
      if (claimed.length > 0) {
        expect(claimed[0]!.task.id).toBe(id);
        expect(cancelled).toEqual({ cancelled: [], requested: [id] });
        expect(t).toMatchObject({ status: 'running', cancelRequested: true });
      } else {
        expect(cancelled).toEqual({ cancelled: [id], requested: [] });
        expect(t.status).toBe('cancelled');
      }
    }
  });

  it('purges finished tasks that ended before the cut-off, and nothing else', async () => {
    const { store } = await freshQueue(backend);
    const id = await oneOfEach(store); // everything that finished did at 20
    const [late] = await store.enqueue([task({ name: 'late', priority: 0 })], 30);
    const [c] = await claim(store, B, 1, 40);
    expect(c!.task.id).toBe(late!.task.id);
    await finish(store, B, 500, done(c!));
    expect(await store.purgeFinished(20)).toBe(0);
    expect(await store.purgeFinished(21)).toBe(3);
    for (const gone of [id.done, id.failed, id.cancelled]) expect(await store.getTask(gone)).toBeNull();
    const left = (await store.listTasks({ sort: 'name', order: 'asc' })).tasks.map((t) => t.name);
    expect(left).toEqual(['late', 'pending', 'retrying', 'running']);
  });
});
