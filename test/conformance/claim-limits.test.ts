/** The claim: every limit a user sets holds, and the wake-up time says when room comes back. */
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
  LEASE_MS,
  names,
  task,
  tasks,
} from './harness.ts';

describe.each(backends)('claim limits on $name', (backend) => {
  it('takes no more than the global limit across workers, nor more than claimMax', async () => {
    const { store } = await freshQueue(backend, 4);
    await store.enqueue(tasks(10), 0);
    expect(await claim(store, A, 3, 10)).toHaveLength(3);
    expect(await claim(store, B, 10, 10)).toHaveLength(1);
    expect(await claim(store, B, 10, 10)).toEqual([]);
    expect((await store.stats(10, 0)).counts).toMatchObject({ running: 4, pending: 6 });
  });

  it('writes the finishes first, so their slots are claimed in the same tick', async () => {
    const { store } = await freshQueue(backend, 2);
    await store.enqueue(tasks(3), 0);
    const held = await claim(store, A, 2, 10);
    const out = await store.tick({
      now: () => 20,
      worker: A,
      leaseMs: LEASE_MS,
      finishes: [done(held[0]!, '"ok"')],
      claimMax: 5,
    });
    expect(out.applied).toHaveLength(1);
    expect(names(out.claimed)).toEqual(['t2']);
    expect(out.claimed[0]!.task).toMatchObject({
      status: 'running',
      attempts: 1,
      leaseOwner: A.id,
      startedAt: 20,
    });
  });

  it('keeps each group within its concurrency and gives the rest of the room to other groups', async () => {
    const { store } = await freshQueue(backend);
    await store.updateGroup('slow', { concurrency: 1 });
    await store.enqueue(
      [
        task({ name: 'slow-1', group: 'slow', priority: 0 }),
        task({ name: 'slow-2', group: 'slow', priority: 0 }),
        task({ name: 'p1', priority: 1 }),
        task({ name: 'p5', priority: 5 }),
      ],
      0,
    );
    const first = await claim(store, A, 10, 10);
    expect(names(first)).toEqual(['slow-1', 'p1', 'p5']);
    // Another worker does not get a second slot of the group either.
    expect(await claim(store, B, 10, 10)).toEqual([]);
    await finish(store, A, 20, done(first[0]!));
    expect(names(await claim(store, B, 10, 21))).toEqual(['slow-2']);
  });

  it('spaces the starts of a rate-limited group evenly, counts them for the faces, and wakes for the next', async () => {
    const { store, connect } = await freshQueue(backend);
    const other = await connect();
    const set = await store.updateGroup('api', { rate: { limit: 4, periodMs: 1000 } });
    expect(set.burst).toBeNull();
    await store.enqueue(tasks(12, { group: 'api' }), 0);
    // 4 a second is one start every 250 ms, whichever connection claims
    expect(await claim(store, A, 10, 10_000)).toHaveLength(1);
    const early = await other.tick({
      now: () => 10_100,
      worker: B,
      leaseMs: LEASE_MS,
      finishes: [],
      claimMax: 10,
    });
    expect(early.claimed).toEqual([]);
    // (a store several hosts share judges it on the database's clock: within a ms)
    expect(Math.abs(early.nextWakeAt! - 10_250)).toBeLessThanOrEqual(1);
    expect(await claim(other, B, 10, 10_250)).toHaveLength(1);
    const api = (await store.stats(10_300, 0)).groups.find((g) => g.name === 'api')!;
    expect(api.rateUsed).toBe(2);
    expect(Math.abs(api.rateFreeAt! - 10_500)).toBeLessThanOrEqual(1);
    const starts = [10_000, 10_250];
    for (let t = 10_260; t < 12_000; t += 10) if ((await claim(store, A, 10, t)).length > 0) starts.push(t);
    for (let i = 0; i + 4 < starts.length; i++)
      expect(starts[i + 4]! - starts[i]!).toBeGreaterThanOrEqual(1000);
    expect(starts.length).toBeGreaterThanOrEqual(7);
  });

  it('lets a burst start at once, and still never more than the rate in any period', async () => {
    const { store } = await freshQueue(backend, 100);
    // 2 at once of 5 a second: by bursts alone a second could hold 6
    await store.updateGroup('api', { rate: { limit: 5, periodMs: 1000 }, burst: 2 });
    await store.enqueue(tasks(30, { group: 'api' }), 0);
    expect(await claim(store, A, 10, 10_000)).toHaveLength(2);
    const starts = [10_000, 10_000];
    for (let t = 10_010; t < 13_000; t += 10) for (const _ of await claim(store, A, 10, t)) starts.push(t);
    for (let i = 0; i + 5 < starts.length; i++)
      expect(starts[i + 5]! - starts[i]!).toBeGreaterThanOrEqual(1000);
    expect(starts.length).toBeGreaterThanOrEqual(14);
  });

  it('starts at most `limit` tasks of a rate-limited group in any window with a whole burst, and wakes when one frees', async () => {
    const { store } = await freshQueue(backend);
    await store.updateGroup('api', { rate: { limit: 2, periodMs: 1000 }, burst: 2 });
    await store.enqueue(tasks(5, { group: 'api' }), 0);
    const first = await claim(store, A, 10, 10_000);
    expect(first).toHaveLength(2);
    // Finishing does not give starts back: the window counts starts.
    await store.tick({
      now: () => 10_100,
      worker: A,
      leaseMs: LEASE_MS,
      finishes: first.map((c) => done(c)),
      claimMax: 0,
    });
    const blocked = await store.tick({
      now: () => 10_500,
      worker: B,
      leaseMs: LEASE_MS,
      finishes: [],
      claimMax: 10,
    });
    expect(blocked).toMatchObject({ claimed: [], nextWakeAt: 11_000 });
    expect((await store.stats(10_500, 0)).groups.find((g) => g.name === 'api')).toMatchObject({
      rateUsed: 2,
      rateFreeAt: 11_000,
    });
    expect(await claim(store, B, 10, 10_999)).toEqual([]);
    expect(await claim(store, B, 10, 11_000)).toHaveLength(2);
    expect(await claim(store, B, 10, 11_500)).toEqual([]);
    expect(await claim(store, B, 10, 12_000)).toHaveLength(1);
  });

  it('claims nothing while the queue is paused, and nothing of a paused group', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ name: 'held', group: 'vendor' }), task({ name: 'free' })], 0);
    await store.updateGroup('vendor', { paused: true });
    await store.updateSettings({ paused: true });
    expect(
      await store.tick({ now: () => 10, worker: A, leaseMs: LEASE_MS, finishes: [], claimMax: 10 }),
    ).toMatchObject({
      claimed: [],
    });
    await store.updateSettings({ paused: false });
    const [free] = await claim(store, A, 10, 10);
    expect(free!.task.name).toBe('free');
    // Pausing stops claims, not results: a finish in a paused queue is written.
    await store.updateSettings({ paused: true });
    expect(await finish(store, A, 20, done(free!))).toHaveLength(1);
    expect((await store.getTask(free!.task.id))!.status).toBe('done');
    await store.updateSettings({ paused: false });
    await store.updateGroup('vendor', { paused: false });
    expect(names(await claim(store, A, 10, 10))).toEqual(['held']);
  });

  it('after a Retry-After, starts no task of that group before the block ends', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([...tasks(3, { group: 'vendor' }, 'v'), task({ name: 'other', runAt: 0 })], 0);
    const [v0] = await claim(store, A, 1, 10);
    expect(v0!.task.name).toBe('v0');
    const out = await store.tick({
      now: () => 20,
      worker: A,
      leaseMs: LEASE_MS,
      finishes: [ended(v0!, 'retrying', 'retry-after', { runAt: 5000, blockGroupUntil: 5000, error: '429' })],
      claimMax: 10,
    });
    expect(names(out.claimed)).toEqual(['other']);
    expect(out.nextWakeAt).toBe(5000);
    expect((await store.stats(20, 0)).groups.find((g) => g.name === 'vendor')!.blockedUntil).toBe(5000);
    expect(await claim(store, B, 10, 4999)).toEqual([]);
    expect(names(await claim(store, B, 10, 5000)).sort()).toEqual(['v0', 'v1', 'v2']);
  });

  it('gives a reserved task only to its worker, and a reservedOnly worker only its own', async () => {
    const { store } = await freshQueue(backend);
    const [mine] = await store.enqueue([task({ name: 'mine', reservedFor: A, priority: 0 })], 0);
    expect(mine!.task.reservedFor).toBe(A.id);
    await store.enqueue([task({ name: 'theirs', reservedFor: B, priority: 0 }), task({ name: 'plain' })], 0);
    expect(names(await claim(store, A, 10, 10, { reservedOnly: true }))).toEqual(['mine']);
    expect(await claim(store, A, 10, 10, { reservedOnly: true })).toEqual([]);
    // A shared worker takes only what nobody reserved.
    const shared = { id: 'shared@host:9:s', pid: 9, host: 'host' };
    expect(names(await claim(store, shared, 10, 10))).toEqual(['plain']);
    expect((await store.getTask((await store.listTasks({ search: 'theirs' })).tasks[0]!.id))!.status).toBe(
      'pending',
    );
  });

  it('counts a reserved task against the limits like any other', async () => {
    const { store } = await freshQueue(backend, 1);
    await store.enqueue([task({ name: 'mine', reservedFor: A })], 0);
    await store.enqueue([task({ name: 'plain' })], 0);
    expect(names(await claim(store, A, 10, 10, { reservedOnly: true }))).toEqual(['mine']);
    expect(await claim(store, B, 10, 10)).toEqual([]);
  });
});
