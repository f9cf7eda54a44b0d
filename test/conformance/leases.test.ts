/** Leases: renewals, reclaiming the tasks of a lost worker, giving leases back, and progress. */
import { describe, expect, it } from 'vitest';
import type { LeaseHolder } from '../../electron/core/store/task-store.ts';
import { A, B, backends, claim, done, finish, freshQueue, task, tasks } from './harness.ts';

describe.each(backends)('leases on $name', (backend) => {
  it('renews what the worker holds and names what it lost and what the user asked to cancel', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(tasks(3), 0);
    const [x, y, z] = await claim(store, A, 3, 10);
    await store.cancel([y!.task.id], 20);
    expect(await store.renewLeases(A, [x!.task.id, y!.task.id, z!.task.id, 999], 30, 60_000)).toEqual({
      lost: [999],
      cancelRequested: [y!.task.id],
      strays: [],
    });
    expect((await store.getTask(x!.task.id))!.leaseExpiresAt).toBe(60_030);
    // Another worker renewing names them all lost and extends nothing of A's.
    expect(await store.renewLeases(B, [x!.task.id], 40, 1)).toEqual({
      lost: [x!.task.id],
      cancelRequested: [],
      strays: [],
    });
    expect((await store.getTask(x!.task.id))!.leaseExpiresAt).toBe(60_030);
  });

  it('names the tasks a worker holds but does not run, once they were claimed a lease ago', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(tasks(2), 0);
    const [x, y] = await claim(store, A, 2, 10);
    // y was claimed by a tick whose answer never reached the worker: it runs only x.
    expect((await store.renewLeases(A, [x!.task.id], 500, 1000)).strays).toEqual([]);
    expect((await store.renewLeases(A, [x!.task.id], 1010, 1000)).strays).toEqual([
      { id: y!.task.id, attemptId: y!.historyId },
    ]);
    const both = (await store.renewLeases(A, [], 1020, 1000)).strays.map((s) => s.id);
    expect(both.sort()).toEqual([x!.task.id, y!.task.id].sort());
    expect(await store.releaseLeases(A, [y!.task.id], 1030)).toEqual([y!.task.id]);
    const back = (await store.getTask(y!.task.id))!;
    expect([back.status, back.attempts]).toEqual(['pending', 0]);
  });

  it('moves the latest lease on every renewal, even on the same millisecond', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task()], 0);
    const [c] = await claim(store, A, 1, 10);
    await store.renewLeases(A, [c!.task.id], 100, 1000);
    const first = (await store.getTask(c!.task.id))!.leaseExpiresAt;
    await store.renewLeases(A, [c!.task.id], 100, 1000);
    expect((await store.getTask(c!.task.id))!.leaseExpiresAt).not.toBe(first);
  });

  it('shows each owner with its latest lease and reclaims only the owners judged lost', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(tasks(3), 0);
    const ofA = await claim(store, A, 2, 10);
    const [ofB] = await claim(store, B, 1, 20);
    await store.renewLeases(
      A,
      ofA.map((c) => c.task.id),
      30,
      5000,
    );
    const seen: LeaseHolder[] = [];
    const ids = await store.reclaimLost(100, (o) => {
      seen.push(o);
      return o.id === A.id;
    });
    expect(ids.map((r) => r.id).sort()).toEqual(ofA.map((c) => c.task.id).sort());
    expect(seen).toEqual(
      expect.arrayContaining([
        { id: A.id, pid: A.pid, host: A.host, leaseExpiresAt: 5030 },
        { id: B.id, pid: B.pid, host: B.host, leaseExpiresAt: 30_020 },
      ]),
    );
    expect(await store.getTask(ofB!.task.id)).toMatchObject({ status: 'running', leaseOwner: B.id });
    expect(await store.reclaimLost(200, () => false)).toEqual([]);
  });

  it('returns a lost task to the queue with its attempt counted, failed when out of attempts, cancelled when asked', async () => {
    const { store } = await freshQueue(backend);
    const [retry, last, asked] = await store.enqueue(
      [
        task({ name: 'retry', maxAttempts: 3 }),
        task({ name: 'last', maxAttempts: 1 }),
        task({ name: 'asked' }),
      ],
      0,
    );
    await claim(store, A, 3, 10);
    await store.cancel([asked!.task.id], 15);
    // each named with what became of it
    expect((await store.reclaimLost(50, (o) => o.id === A.id)).sort((a, b) => a.id - b.id)).toEqual([
      { id: retry!.task.id, status: 'pending' },
      { id: last!.task.id, status: 'failed' },
      { id: asked!.task.id, status: 'cancelled' },
    ]);
    const r = (await store.getTask(retry!.task.id))!;
    expect(r).toMatchObject({
      status: 'pending',
      attempts: 1,
      runAt: 50,
      leaseOwner: null,
      finishedAt: null,
    });
    expect(r.error).toMatch(/lease lost/);
    expect(r.history).toEqual([expect.objectContaining({ outcome: 'lost', endedAt: 50, worker: A.id })]);
    expect(await store.getTask(last!.task.id)).toMatchObject({ status: 'failed', finishedAt: 50 });
    expect(await store.getTask(asked!.task.id)).toMatchObject({
      status: 'cancelled',
      cancelRequested: false,
    });
    const [again] = await claim(store, B, 10, 60);
    expect(again!.task).toMatchObject({ id: retry!.task.id, attempts: 2 });
  });

  it('cancels the waiting reservations of a reserving process that is gone', async () => {
    const { store } = await freshQueue(backend);
    const gone = { id: 'run@host:999999:ab', pid: 999_999, host: 'host' };
    const [orphan] = await store.enqueue([task({ name: 'nightly', reservedFor: gone })], 1);
    const [alive] = await store.enqueue([task({ reservedFor: A })], 1);
    const seen: LeaseHolder[] = [];
    const reclaimed = await store.reclaimLost(2, (o) => (seen.push(o), o.pid === 999_999));
    expect(reclaimed).toEqual([{ id: orphan!.task.id, status: 'cancelled' }]);
    expect(seen).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: gone.id, pid: 999_999, host: 'host' })]),
    );
    const t = (await store.getTask(orphan!.task.id))!;
    expect(t).toMatchObject({ status: 'cancelled', finishedAt: 2 });
    expect(t.error).toMatch(/pid 999999/);
    expect((await store.getTask(alive!.task.id))!.status).toBe('pending');
  });

  it("cancels a gone `semaforo run`'s own running task in the reap that finds it gone", async () => {
    const { store } = await freshQueue(backend);
    const run = { id: 'run@host:999998:cd', pid: 999_998, host: 'host' };
    const [mine] = await store.enqueue([task({ name: 'backup', reservedFor: run, maxAttempts: 3 })], 1);
    expect(await claim(store, run, 1, 10, { reservedOnly: true })).toHaveLength(1);
    // Back in the queue it would wait for that process forever: one reap ends it, and says so.
    expect(await store.reclaimLost(20, (o) => o.id === run.id)).toEqual([
      { id: mine!.task.id, status: 'cancelled' },
    ]);
    const t = (await store.getTask(mine!.task.id))!;
    expect(t).toMatchObject({ status: 'cancelled', attempts: 1, finishedAt: 20 });
    expect(t.error).toMatch(/semaforo run process running it/);
    expect(t.history.at(-1)).toMatchObject({ outcome: 'lost' });
    expect(await store.reclaimLost(30, (o) => o.id === run.id)).toEqual([]);
  });

  it("ends a gone owner's leases and a gone process's reservations in one reap", async () => {
    const { store } = await freshQueue(backend);
    const gone = { id: 'run@host:999999:ab', pid: 999_999, host: 'host' };
    const [orphan] = await store.enqueue([task({ name: 'nightly', reservedFor: gone, runAt: 5 })], 1);
    const [leased] = await store.enqueue([task({ name: 'leased', group: 'other' })], 1);
    await claim(store, A, 1, 10);
    const taken = await store.reclaimLost(20, (o) => o.id === A.id || o.id === gone.id);
    expect(taken).toEqual([
      { id: leased!.task.id, status: 'pending' },
      { id: orphan!.task.id, status: 'cancelled' },
    ]);
    expect(await store.getTask(leased!.task.id)).toMatchObject({ status: 'pending', runAt: 20, attempts: 1 });
    const t = (await store.getTask(orphan!.task.id))!;
    expect(t).toMatchObject({ status: 'cancelled', runAt: 5, attempts: 0, finishedAt: 20, history: [] });
  });

  it("gives back a worker's own leases on shutdown without counting the attempt", async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(tasks(2), 0);
    const [mine] = await claim(store, A, 1, 10);
    const [theirs] = await claim(store, B, 1, 10);
    expect(await store.releaseLeases(A, [mine!.task.id, theirs!.task.id], 20)).toEqual([mine!.task.id]);
    const t = (await store.getTask(mine!.task.id))!;
    expect(t).toMatchObject({ status: 'pending', attempts: 0, leaseOwner: null, runAt: 20 });
    expect(t.history).toEqual([expect.objectContaining({ outcome: 'released', endedAt: 20 })]);
    expect((await store.getTask(theirs!.task.id))!.status).toBe('running');
    const [again] = await claim(store, B, 1, 30);
    expect(again!.task).toMatchObject({ id: mine!.task.id, attempts: 1 });
  });

  it('gives a stray back only while the claim judged a stray still holds it', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(tasks(2), 0);
    const [x, y] = await claim(store, A, 2, 10);
    // x was given back meanwhile and claimed again by the same worker: another attempt
    expect(await store.releaseLeases(A, [x!.task.id], 20)).toEqual([x!.task.id]);
    const [again] = await claim(store, A, 1, 30);
    expect(again!.task.id).toBe(x!.task.id);
    expect(again!.historyId).not.toBe(x!.historyId);
    const strays = (await store.renewLeases(A, [], 2000, 1000)).strays;
    expect(strays.sort((a, b) => a.id - b.id)).toEqual(
      [
        { id: x!.task.id, attemptId: again!.historyId },
        { id: y!.task.id, attemptId: y!.historyId },
      ].sort((a, b) => a.id - b.id),
    );
    // released on the first claim's attempt: x is left to its later claim, y goes back
    const released = await store.releaseLeases(A, [x!.task.id, y!.task.id], 2010, [
      x!.historyId,
      y!.historyId,
    ]);
    expect(released).toEqual([y!.task.id]);
    expect((await store.getTask(x!.task.id))!.status).toBe('running');
    expect((await store.getTask(y!.task.id))!).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('stores progress from the lease holder only, and clears it on the next claim', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ maxAttempts: 2 })], 0);
    const [c] = await claim(store, A, 1, 10);
    await store.setProgress(new Map([[c!.task.id, 0.25]]), A);
    await store.setProgress(new Map([[c!.task.id, 0.9]]), B);
    expect((await store.getTask(c!.task.id))!.progress).toBe(0.25);
    await store.reclaimLost(20, (o) => o.id === A.id);
    const [again] = await claim(store, B, 1, 30);
    expect(again!.task.progress).toBeNull();
  });

  it("shows a running attempt's output so far from its holder only, until its finish writes the rest", async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task()], 0);
    const [c] = await claim(store, A, 1, 10);
    const attempt = async () => (await store.getTask(c!.task.id))!.history.find((h) => h.type === 'attempt')!;
    await store.setLiveOutput(new Map([[c!.historyId, 'step 1\n']]), A);
    await store.setLiveOutput(new Map([[c!.historyId, 'from another worker\n']]), B);
    expect(await attempt()).toMatchObject({ outcome: 'running', output: 'step 1\n' });
    await finish(store, A, 20, done(c!, null, 'step 1\nstep 2\n'));
    await store.setLiveOutput(new Map([[c!.historyId, 'a late flush\n']]), A);
    expect(await attempt()).toMatchObject({ outcome: 'done', output: 'step 1\nstep 2\n' });
  });
});
