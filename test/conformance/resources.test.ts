/**
 * Named resources: claimed all or nothing with the other limits, across groups and workers,
 * released with the status change that ends a run, and a heavy task not starved by light ones.
 */
import { describe, expect, it } from 'vitest';
import { RESERVE_AFTER_PASSES } from '../../electron/core/policy/resource-ledger.ts';
import { A, B, backends, claim, done, ended, finish, freshQueue, names, task, tasks } from './harness.ts';

const uses = (...list: [string, number][]) => list.map(([resource, weight]) => ({ resource, weight }));
const db = uses(['main-db', 1]);

describe.each(backends)('named resources on $name', (backend) => {
  it('lets tasks of different groups and workers hold main-db one at a time', async () => {
    const { store } = await freshQueue(backend);
    await store.setResource('main-db', 1);
    await store.enqueue(
      [
        task({ name: 'backup', group: 'backups', uses: db }),
        task({ name: 'migrate', group: 'deploys', uses: db }),
        task({ name: 'free' }),
      ],
      0,
    );
    const first = await claim(store, A, 10, 10);
    expect(names(first)).toEqual(['backup', 'free']);
    expect(await claim(store, B, 10, 11)).toEqual([]);
    const [held] = (await store.stats(12, 0)).resources;
    expect(held).toMatchObject({ name: 'main-db', capacity: 1, held: 1, waiting: 1 });
    expect(held!.holders).toHaveLength(1);
    expect(held!.holders[0]!.taskId).toBe(first[0]!.task.id);
    expect(first[0]!.task.uses).toEqual(db);
    await finish(store, A, 20, done(first[0]!));
    expect(names(await claim(store, B, 10, 21))).toEqual(['migrate']);
  });

  it('counts weights: cpu:3 of 4 leaves room for one cpu:1, never two', async () => {
    const { store } = await freshQueue(backend);
    await store.setResource('cpu', 4);
    await store.enqueue(
      [task({ name: 'heavy', uses: uses(['cpu', 3]) }), ...tasks(3, { uses: uses(['cpu', 1]) }, 'light')],
      0,
    );
    const first = await claim(store, A, 10, 10);
    expect(names(first)).toEqual(['heavy', 'light0']);
    expect(await claim(store, B, 10, 11)).toEqual([]);
    await finish(store, A, 20, done(first[0]!));
    expect(names(await claim(store, B, 10, 21))).toEqual(['light1', 'light2']);
  });

  it('takes all of a task’s resources or none, and lets a blocked head not stall its group', async () => {
    const { store } = await freshQueue(backend);
    await store.setResource('main-db', 1);
    await store.setResource('nas', 1);
    await store.updateGroup('g', { concurrency: 1 });
    await store.enqueue([task({ name: 'db-only', uses: db })], 0);
    expect(names(await claim(store, A, 10, 1))).toEqual(['db-only']);
    await store.enqueue(
      [
        task({ name: 'both', group: 'g', priority: 1, uses: uses(['main-db', 1], ['nas', 1]) }),
        task({ name: 'nas-only', group: 'g', priority: 2, uses: uses(['nas', 1]) }),
      ],
      2,
    );
    // `both` cannot have main-db, so it holds no nas either: the next of its group takes nas.
    expect(names(await claim(store, B, 10, 3))).toEqual(['nas-only']);
  });

  it('releases on a finish, a failure, a reclaimed lease and a cancel', async () => {
    const { store } = await freshQueue(backend);
    await store.setResource('main-db', 1);
    await store.enqueue(tasks(5, { uses: db }), 0);
    const free = async (now: number) => {
      const got = await claim(store, A, 10, now);
      expect(got).toHaveLength(1);
      return got[0]!;
    };
    const t0 = await free(1);
    await finish(store, A, 2, ended(t0, 'retrying', 'retry', { runAt: 1_000_000 }));
    const t1 = await free(3);
    expect(await store.reclaimLost(4, (o) => o.id === A.id)).toEqual([{ id: t1.task.id, status: 'pending' }]);
    const t2 = await free(5);
    // A running task asked to cancel keeps holding until its handler stops.
    expect((await store.cancel([t2.task.id], 6)).requested).toEqual([t2.task.id]);
    expect(await claim(store, B, 10, 7)).toEqual([]);
    await finish(store, A, 8, ended(t2, 'cancelled', 'cancelled'));
    const t3 = await free(9);
    expect([t0, t1, t2, t3].map((c) => c.task.id)).toHaveLength(new Set([t0, t1, t2, t3]).size);
  });

  it('keeps a task naming an undefined resource waiting; capacities change at run time', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(tasks(3, { uses: uses(['gpu', 1]) }), 0);
    expect(await claim(store, A, 10, 1)).toEqual([]);
    await store.setResource('gpu', 1);
    expect(await claim(store, A, 10, 2)).toHaveLength(1);
    await store.setResource('gpu', 3);
    expect(await claim(store, A, 10, 3)).toHaveLength(2);
    expect((await store.stats(4, 0)).resources[0]).toMatchObject({ capacity: 3, held: 3 });
    expect(await store.removeResource('gpu')).toBe(true);
    expect(await store.removeResource('gpu')).toBe(false);
    expect((await store.stats(5, 0)).resources).toEqual([]);
  });

  it(`holds capacity back for a heavy task passed over ${RESERVE_AFTER_PASSES} times`, async () => {
    const { store } = await freshQueue(backend);
    await store.setResource('cpu', 4);
    await store.enqueue(tasks(4, { uses: uses(['cpu', 1]) }, 'old'), 0);
    const running = await claim(store, A, 10, 1);
    expect(running).toHaveLength(4);
    await store.enqueue([task({ name: 'heavy', uses: uses(['cpu', 4]) })], 2);
    // A stream of light tasks, each enqueued after the heavy one: one light finishes per turn.
    let now = 10;
    const started: string[] = [];
    for (let i = 0; i < 8; i++) {
      await store.enqueue([task({ name: `new${i}`, uses: uses(['cpu', 1]) })], now);
      const out = await store.tick({
        now: () => now,
        worker: B,
        leaseMs: 30_000,
        finishes: [],
        claimMax: 10,
      });
      started.push(...names(out.claimed));
      running.push(...out.claimed);
      if (started.includes('heavy')) break;
      const next = running.shift()!;
      await finish(store, next.task.leaseOwner === A.id ? A : B, now + 1, done(next));
      now += 10;
    }
    // Before reserving, the heavy task was passed over at most RESERVE_AFTER_PASSES times,
    // each time letting one light task in; then it started once the holders had finished.
    expect(started).toContain('heavy');
    expect(started.indexOf('heavy')).toBeLessThanOrEqual(RESERVE_AFTER_PASSES);
    const info = (await store.stats(now, 0)).resources[0]!;
    expect(info.holders.map((h) => h.weight)).toContain(4);
  });

  it('holds back for a reserving task even in a worker without its kind', async () => {
    const { store } = await freshQueue(backend);
    await store.setResource('cpu', 2);
    await store.enqueue(tasks(2, { uses: uses(['cpu', 1]) }, 'old'), 0);
    const running = await claim(store, A, 10, 1);
    await store.enqueue([task({ name: 'heavy', kind: 'render', uses: uses(['cpu', 2]) })], 2);
    for (let i = 0; i < RESERVE_AFTER_PASSES; i++) expect(await claim(store, A, 10, 3 + i)).toEqual([]);
    expect((await store.stats(9, 0)).resources[0]!.reservedFor).toHaveLength(1);
    await store.enqueue([task({ name: 'light', uses: uses(['cpu', 1]) })], 10);
    await finish(store, A, 11, done(running[0]!));
    // One unit is free, but it is held back for `heavy`, which this worker cannot run.
    expect(await claim(store, B, 10, 12, { kinds: ['sleep'] })).toEqual([]);
    await finish(store, A, 13, done(running[1]!));
    expect(names(await claim(store, A, 10, 14))).toEqual(['heavy']);
  });

  it('never reserves for a task larger than the capacity', async () => {
    const { store } = await freshQueue(backend);
    await store.setResource('cpu', 2);
    await store.enqueue([task({ name: 'huge', uses: uses(['cpu', 3]) })], 0);
    for (let i = 0; i < RESERVE_AFTER_PASSES + 1; i++) expect(await claim(store, A, 10, 1 + i)).toEqual([]);
    await store.enqueue([task({ name: 'small', uses: uses(['cpu', 2]) })], 10);
    expect(names(await claim(store, A, 10, 11))).toEqual(['small']);
  });
});
