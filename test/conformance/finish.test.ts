/** How a claimed attempt ends: each end is written as the dispatcher decided, and only by its holder. */
import { describe, expect, it } from 'vitest';
import type { GateVerdict } from '../../electron/core/store/gate-row.ts';
import type { Finish } from '../../electron/core/store/task-store.ts';
import {
  A,
  B,
  backends,
  claim,
  done,
  ended,
  finish,
  freshQueue,
  LEASE_MS,
  task,
  type Store,
} from './harness.ts';

/** A tick at 20 whose claim fails (a gate throws), then the same `ends` handed again: its output. */
async function claimFailsThenAgain(store: Store, ends: Finish[]) {
  const tick = (gates: () => GateVerdict) =>
    store.tick({ now: () => 20, worker: A, leaseMs: LEASE_MS, finishes: ends, claimMax: 1, gates });
  await expect(
    tick(() => {
      throw new Error('the claim failed');
    }),
  ).rejects.toThrow('the claim failed');
  return tick(() => ({ queueClosed: false, closedGroups: new Set<string>() }));
}

describe.each(backends)('finishes on $name', (backend) => {
  it('records a success with its result, output and the end of its attempt', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task()], 0);
    const [c] = await claim(store, A, 1, 10);
    expect(c!.task).toMatchObject({
      status: 'running',
      attempts: 1,
      leaseOwner: A.id,
      leaseExpiresAt: 30_010,
    });
    const applied = await finish(store, A, 50, done(c!, '{"rows":3,"q":"\\""}', 'line 1\né☃𝄞'));
    expect(applied).toEqual([done(c!, '{"rows":3,"q":"\\""}', 'line 1\né☃𝄞')]);
    const t = (await store.getTask(c!.task.id))!;
    expect(t).toMatchObject({
      status: 'done',
      result: { rows: 3, q: '"' },
      error: null,
      startedAt: 10,
      finishedAt: 50,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    expect(t.history).toEqual([
      expect.objectContaining({
        id: c!.historyId,
        type: 'attempt',
        attempt: 1,
        startedAt: 10,
        endedAt: 50,
        outcome: 'done',
        output: 'line 1\né☃𝄞',
        worker: A.id,
      }),
    ]);
  });

  it('records the time a machine gate kept an attempt paused, on done and failed ends', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ name: 'x' }), task({ name: 'y' })], 0);
    const [x, y] = await claim(store, A, 2, 10);
    await finish(
      store,
      A,
      20,
      { ...done(x!), pausedMs: 12_345 },
      { ...ended(y!, 'failed', 'failed', { error: 'boom' }), pausedMs: 7 },
    );
    expect((await store.getTask(x!.task.id))!.history.at(-1)).toMatchObject({
      outcome: 'done',
      pausedMs: 12_345,
    });
    expect((await store.getTask(y!.task.id))!.history.at(-1)).toMatchObject({
      outcome: 'failed',
      pausedMs: 7,
    });
  });

  it('records a permanent failure as failed, with its error and outcome', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ name: 'x' }), task({ name: 'y' })], 0);
    const [x, y] = await claim(store, A, 2, 10);
    await finish(
      store,
      A,
      20,
      ended(x!, 'failed', 'failed', { error: 'boom', output: 'stderr tail' }),
      ended(y!, 'failed', 'timeout', { error: 'timed out after 5s' }),
    );
    const tx = (await store.getTask(x!.task.id))!;
    expect(tx).toMatchObject({ status: 'failed', error: 'boom', finishedAt: 20, leaseOwner: null });
    expect(tx.history.at(-1)).toMatchObject({
      outcome: 'failed',
      error: 'boom',
      output: 'stderr tail',
      endedAt: 20,
    });
    expect((await store.getTask(y!.task.id))!.history.at(-1)).toMatchObject({ outcome: 'timeout' });
  });

  it('puts a retry back in the queue at its backoff time, counting the attempt', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task()], 0);
    const [c] = await claim(store, A, 1, 10);
    await finish(store, A, 20, ended(c!, 'retrying', 'retry', { runAt: 1000, error: 'flaky' }));
    expect(await store.getTask(c!.task.id)).toMatchObject({
      status: 'retrying',
      attempts: 1,
      runAt: 1000,
      error: 'flaky',
      finishedAt: null,
      leaseOwner: null,
    });
    expect(await claim(store, B, 1, 999)).toEqual([]);
    const [again] = await claim(store, B, 1, 1000);
    expect(again!.task).toMatchObject({ id: c!.task.id, attempts: 2, leaseOwner: B.id });
    expect(again!.historyId).not.toBe(c!.historyId);
    const h = (await store.getTask(c!.task.id))!.history;
    expect(h.map((e) => [e.attempt, e.outcome])).toEqual([
      [1, 'retry'],
      [2, 'running'],
    ]);
  });

  it('gives the attempt back on a Retry-After reschedule and counts the reschedule instead', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ maxAttempts: 1 })], 0);
    const [c] = await claim(store, A, 1, 10);
    await finish(store, A, 20, ended(c!, 'retrying', 'retry-after', { runAt: 500, error: '429' }));
    expect(await store.getTask(c!.task.id)).toMatchObject({
      status: 'retrying',
      attempts: 0,
      retryAfterCount: 1,
    });
    const [again] = await claim(store, A, 1, 500);
    expect(again!.task.attempts).toBe(1);
  });

  it('holds the group of a success that said its quota is used up, and only when written', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ group: 'vendor' }), task({ group: 'vendor' }), task({ group: 'other' })], 0);
    const [c] = await claim(store, A, 1, 10);
    await finish(store, A, 20, { ...done(c!), blockGroupUntil: 5000 });
    expect((await store.getTask(c!.task.id))!.status).toBe('done');
    const vendor = (await store.stats(30, 0)).groups.find((g) => g.name === 'vendor')!;
    expect(vendor.blockedUntil).toBe(5000);
    // Only the other group's task starts before then.
    expect((await claim(store, A, 5, 100)).map((x) => x.task.group)).toEqual(['other']);
    expect((await claim(store, A, 5, 5000)).map((x) => x.task.group)).toEqual(['vendor']);
    // A worker that lost the lease holds nothing.
    const { store: s2 } = await freshQueue(backend);
    await s2.enqueue([task({ group: 'vendor' })], 0);
    const [lost] = await claim(s2, A, 1, 10);
    await finish(s2, B, 20, { ...done(lost!), blockGroupUntil: 5000 });
    expect((await s2.stats(30, 0)).groups.find((g) => g.name === 'vendor')!.blockedUntil).toBeNull();
  });

  it('records a cancellation the worker carried out', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task()], 0);
    const [c] = await claim(store, A, 1, 10);
    expect(await store.cancel([c!.task.id], 15)).toEqual({ cancelled: [], requested: [c!.task.id] });
    await finish(store, A, 20, ended(c!, 'cancelled', 'cancelled', { error: 'cancelled by the user' }));
    expect(await store.getTask(c!.task.id)).toMatchObject({
      status: 'cancelled',
      finishedAt: 20,
      cancelRequested: false,
    });
    expect((await store.stats(20, 0)).counts).toMatchObject({ running: 0, cancelled: 1 });
  });

  it('writes none of the ends of a worker that lost the lease, and all of those it holds', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ name: 'moved' }), task({ name: 'kept' })], 0);
    const [moved] = await claim(store, A, 1, 10);
    expect(await store.reclaimLost(20, (o) => o.id === A.id)).toEqual([
      { id: moved!.task.id, status: 'pending' },
    ]);
    const ofB = await claim(store, B, 2, 30);
    const again = ofB.find((c) => c.task.id === moved!.task.id)!;
    const kept = ofB.find((c) => c.task.id !== moved!.task.id)!;
    expect(again.task.attempts).toBe(2);
    // A's late end names attempt 1, which it no longer holds; B's stale copy names the wrong attempt.
    expect(await finish(store, A, 40, done(moved!, '"late"'))).toEqual([]);
    const stale = { ...done(kept, '"stale"'), attempt: kept.task.attempts + 1 };
    const good = done(again, '"fresh"');
    expect(await finish(store, B, 50, stale, good)).toEqual([good]);
    expect(await store.getTask(again.task.id)).toMatchObject({ status: 'done', result: 'fresh' });
    expect(await store.getTask(kept.task.id)).toMatchObject({ status: 'running', leaseOwner: B.id });
    const first = (await store.getTask(moved!.task.id))!.history.find((h) => h.id === moved!.historyId);
    expect(first).toMatchObject({ outcome: 'lost' });
  });

  it('keeps the ends of a tick whose claim failed for the next tick that hands them again', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ name: 'x' }), task({ name: 'y' })], 0);
    const [x, y] = await claim(store, A, 2, 10);
    await store.enqueue([task({ name: 'next' })], 15);
    const ends = [done(x!, '"x"'), done(y!, '"y"')];
    // The dispatcher hands the same ends again with its next tick.
    const out = await claimFailsThenAgain(store, ends);
    expect(new Set(out.applied)).toEqual(new Set(ends));
    expect(out.claimed.map((c) => c.task.name)).toEqual(['next']);
    for (const c of [x!, y!])
      expect(await store.getTask(c.task.id)).toMatchObject({ status: 'done', finishedAt: 20 });
    expect((await store.stats(20, 0)).counts).toMatchObject({ running: 1, done: 2 });
  });

  it('keeps failed ends and paused time the same way, each written once', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ name: 'x' }), task({ name: 'y' }), task({ name: 'z', maxAttempts: 5 })], 0);
    const [x, y, z] = await claim(store, A, 3, 10);
    await store.enqueue([task({ name: 'next' })], 15);
    const ends = [
      { ...done(x!, '"x"'), pausedMs: 5 },
      ended(y!, 'failed', 'failed', { error: 'boom' }),
      ended(z!, 'retrying', 'retry-after', { runAt: 30, error: '429' }),
    ];
    const out = await claimFailsThenAgain(store, ends);
    expect(new Set(out.applied)).toEqual(new Set(ends));
    expect(out.claimed.map((c) => c.task.name)).toEqual(['next']);
    expect(await store.getTask(x!.task.id)).toMatchObject({ status: 'done', finishedAt: 20 });
    expect((await store.getTask(x!.task.id))!.history.at(-1)).toMatchObject({ pausedMs: 5 });
    expect(await store.getTask(y!.task.id)).toMatchObject({ status: 'failed', error: 'boom' });
    // the attempt given back once, the reschedule counted once
    expect(await store.getTask(z!.task.id)).toMatchObject({
      status: 'retrying',
      attempts: 0,
      retryAfterCount: 1,
      runAt: 30,
    });
    expect((await store.stats(20, 0)).counts).toMatchObject({ running: 1, done: 1, failed: 1, retrying: 1 });
  });
});
