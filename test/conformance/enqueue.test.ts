/** Enqueue: what goes in comes back as stored, unique keys hold one unfinished task, and delays hold. */
import { describe, expect, it } from 'vitest';
import { A, backends, claim, done, finish, freshQueue, names, task, tasks } from './harness.ts';

describe.each(backends)('enqueue on $name', (backend) => {
  it('stores a batch in order and returns exactly the stored tasks', async () => {
    const { store } = await freshQueue(backend);
    const batch = Array.from({ length: 150 }, (_, i) =>
      task({
        name: `n${i}`,
        group: ['a', 'b', 'c'][i % 3]!,
        priority: i % 10,
        payload: JSON.stringify({ ms: i, note: 'é☃' }),
        runAt: i % 2 ? 60_000 : 0,
        timeout: i % 3 ? 5000 : null,
        maxAttempts: 1 + (i % 4),
      }),
    );
    const out = await store.enqueue(batch, 1000);
    expect(out.map((r) => r.task.name)).toEqual(batch.map((t) => t.name));
    expect(new Set(out.map((r) => r.task.id)).size).toBe(150);
    for (const [i, r] of out.entries()) {
      expect(r.created).toBe(true);
      expect(r.task).toMatchObject({
        status: 'pending',
        attempts: 0,
        createdAt: 1000,
        payload: { ms: i, note: 'é☃' },
        priority: i % 10,
        maxAttempts: 1 + (i % 4),
        reservedFor: null,
        scheduleId: null,
      });
      const { history, ...stored } = (await store.getTask(r.task.id))!;
      expect(history).toEqual([]);
      expect(stored).toEqual(r.task);
    }
    expect((await store.stats(1000, 0)).counts.pending).toBe(150);
  });

  it('gives later enqueues larger ids (FIFO within a priority) and an empty batch stores nothing', async () => {
    const { store } = await freshQueue(backend);
    const [first] = await store.enqueue([task()], 1);
    const [second] = await store.enqueue([task()], 1);
    expect(second!.task.id).toBeGreaterThan(first!.task.id);
    expect(await store.enqueue([], 2)).toEqual([]);
    expect((await store.listTasks({})).total).toBe(2);
  });

  it('returns the unfinished task holding a unique key instead of a duplicate, in a batch and across', async () => {
    const { store } = await freshQueue(backend);
    const [held] = await store.enqueue([task({ name: 'held', unique: 'k1' })], 1);
    const out = await store.enqueue(
      [
        task({ name: 'x', unique: 'k2' }),
        task({ name: 'y', unique: 'k1' }),
        task({ name: 'z' }),
        task({ name: 'w', unique: 'k2' }),
      ],
      2,
    );
    expect(out.map((r) => [r.task.name, r.created])).toEqual([
      ['x', true],
      ['held', false],
      ['z', true],
      ['x', false],
    ]);
    expect(out[1]!.task).toEqual(held!.task);
    expect(out[3]!.task).toEqual(out[0]!.task);
    expect((await store.stats(2, 0)).counts.pending).toBe(3);
  });

  it('frees a unique key once its task has finished or was cancelled, not while it runs', async () => {
    const { store } = await freshQueue(backend);
    const [r] = await store.enqueue([task({ unique: 'nightly' })], 1);
    const [c] = await claim(store, A, 1, 10);
    expect(c!.task.id).toBe(r!.task.id);
    const whileRunning = await store.enqueue([task({ unique: 'nightly' })], 11);
    expect(whileRunning[0]).toMatchObject({ created: false, task: { id: r!.task.id } });
    await finish(store, A, 20, done(c!));
    const [again] = await store.enqueue([task({ unique: 'nightly' })], 21);
    expect(again!.created).toBe(true);
    await store.cancel([again!.task.id], 22);
    expect((await store.enqueue([task({ unique: 'nightly' })], 23))[0]!.created).toBe(true);
  });

  it('holds a task until its runAt and says when to wake for it', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ name: 'later', runAt: 5000 }), task({ name: 'now', runAt: 0 })], 0);
    const first = await store.tick({ now: () => 1000, worker: A, leaseMs: 1000, finishes: [], claimMax: 10 });
    expect(names(first.claimed)).toEqual(['now']);
    const idle = await store.tick({ now: () => 1000, worker: A, leaseMs: 1000, finishes: [], claimMax: 10 });
    expect(idle).toMatchObject({ claimed: [], nextWakeAt: 5000 });
    expect(names(await claim(store, A, 10, 4999))).toEqual([]);
    expect(names(await claim(store, A, 10, 5000))).toEqual(['later']);
  });

  it('claims by priority (0 first), then due time, then enqueue order', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(
      [
        task({ name: 'p5-old-due', priority: 5, runAt: 100 }),
        task({ name: 'p9', priority: 9 }),
        task({ name: 'p5-first', priority: 5, runAt: 50 }),
        task({ name: 'p5-second', priority: 5, runAt: 50 }),
        task({ name: 'p0', priority: 0, group: 'other' }),
        task({ name: 'p1-delayed', priority: 1, runAt: 9000 }),
      ],
      0,
    );
    expect(names(await claim(store, A, 10, 1000))).toEqual([
      'p0',
      'p5-first',
      'p5-second',
      'p5-old-due',
      'p9',
    ]);
  });

  it('is visible at once to another connection, and kept across a reopen', async () => {
    const q = await freshQueue(backend);
    const other = await q.connect();
    await q.store.enqueue(tasks(3), 1);
    expect((await other.listTasks({ order: 'asc' })).tasks.map((t) => t.name)).toEqual(['t0', 't1', 't2']);
    // ...and to its actions, right after the enqueue returned.
    const [fresh, gone] = await q.store.enqueue(tasks(2, {}, 'new'), 2);
    expect(await other.cancel([fresh!.task.id], 3)).toEqual({ cancelled: [fresh!.task.id], requested: [] });
    expect(await other.remove([gone!.task.id])).toEqual([gone!.task.id]);
    await q.store.close();
    const reopened = await q.connect();
    expect((await reopened.stats(1, 0)).counts).toMatchObject({ pending: 3, cancelled: 1 });
    expect(names(await claim(reopened, A, 10, 2))).toEqual(['t0', 't1', 't2']);
  });
});
