/** Actions by filter: what matches in the whole queue is retried, cancelled or deleted, up to a cap. */
import { describe, expect, it } from 'vitest';
import { failureCause, failureKey } from '../../shared/failure-cause.ts';
import { A, backends, claim, ended, finish, freshQueue, task, tasks, type Store } from './harness.ts';

const ALL = { max: 1_000_000 };

/** Fails every pending task of the queue with `error` (one claim each, at most 1 attempt). */
async function failAll(store: Store, n: number, error: (i: number) => string, now = 10) {
  const claimed = await claim(store, A, n, now);
  await finish(
    store,
    A,
    now + 1,
    ...claimed.map((c, i) => ended(c, 'failed', 'failed', { error: error(i) })),
  );
  return claimed.map((c) => c.task.id);
}

describe.each(backends)('actions by filter on $name', (backend) => {
  it('retries every failed task a filter matches, by group, kind and search, not the others', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(
      [
        ...tasks(3, { group: 'vendor', maxAttempts: 1 }, 'fetch-'),
        ...tasks(2, { group: 'backup', maxAttempts: 1 }, 'dump-'),
        task({ name: 'fetch-shell', group: 'vendor', kind: 'shell', maxAttempts: 1 }),
      ],
      0,
    );
    const ids = await failAll(store, 6, (i) => (i === 1 ? 'KeyError: user' : 'timeout'));
    const dry = await store.actOnMatching(
      'retry',
      { status: ['failed'], group: 'vendor', kind: 'sleep' },
      20,
      {
        max: 100,
        dryRun: true,
      },
    );
    expect(dry).toEqual({ ids: ids.slice(0, 3), requested: [] });
    // a dry run writes nothing
    expect((await store.listTasks({ status: ['failed'] })).total).toBe(6);

    expect(await store.actOnMatching('retry', { search: 'keyerror' }, 20, ALL)).toEqual({
      ids: [ids[1]],
      requested: [],
    });
    const out = await store.actOnMatching('retry', { status: ['failed'], group: 'vendor' }, 30, ALL);
    expect(out.ids).toEqual([ids[0], ids[2], ids[5]]);
    const t = (await store.getTask(ids[0]!))!;
    expect(t).toMatchObject({ status: 'pending', attempts: 0, runAt: 30 });
    expect(t.history.at(-1)).toMatchObject({ outcome: 'retried', attempt: 1 });
    expect((await store.listTasks({ status: ['failed'] })).tasks.map((x) => x.name).sort()).toEqual([
      'dump-0',
      'dump-1',
    ]);
  });

  it('acts on at most the count confirmed, oldest first', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(tasks(5, { maxAttempts: 1 }), 0);
    const ids = await failAll(store, 5, () => 'boom');
    expect((await store.actOnMatching('retry', { status: ['failed'] }, 20, { max: 2 })).ids).toEqual(
      ids.slice(0, 2),
    );
    expect((await store.listTasks({ status: ['failed'] })).total).toBe(3);
  });

  it('acts only on the tasks its dry run counted, not on as many others that match by then', async () => {
    const { store } = await freshQueue(backend);
    const made = await store.enqueue(tasks(3), 0);
    const [one, two, three] = made.map((r) => r.task.id);
    const dry = await store.actOnMatching('remove', { status: ['pending'] }, 5, { max: 100, dryRun: true });
    expect(dry.ids).toEqual([one, two, three]);
    // Meanwhile task 1 is claimed and a fourth task begins to match.
    const [claimed] = await claim(store, A, 1, 10);
    expect(claimed!.task.id).toBe(one);
    const [four] = (await store.enqueue(tasks(1, {}, 'late-'), 11)).map((r) => r.task.id);
    const out = await store.actOnMatching('remove', { status: ['pending'] }, 20, {
      max: dry.ids.length,
      throughId: Math.max(...dry.ids),
    });
    expect(out).toEqual({ ids: [two, three], requested: [] });
    expect(await store.getTask(four!)).toMatchObject({ status: 'pending' });
  });

  it("retries one failure group's tasks by cause, past what any page holds", async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(tasks(9, { kind: 'shell', maxAttempts: 1 }), 0);
    const curl = (i: number) =>
      `"curl https://h${i}.test/x" exited with code 7: curl: (7) Failed to connect to h${i}.test`;
    const ids = await failAll(store, 9, (i) =>
      i % 3 === 2 ? 'pg_dump: error: connection refused' : curl(i),
    );
    const cause = failureKey('shell', failureCause(curl(0)));
    const out = await store.actOnMatching('retry', { status: ['failed'], kind: 'shell', cause }, 20, ALL);
    expect(out.ids).toEqual(ids.filter((_, i) => i % 3 !== 2));
    expect((await store.listTasks({ status: ['failed'] })).total).toBe(3);
  });

  it('cancels waiting tasks, asks running ones to stop, and passes over finished ones', async () => {
    const { store } = await freshQueue(backend);
    const made = await store.enqueue(tasks(4, { group: 'g' }), 0);
    const [running] = await claim(store, A, 1, 10);
    const out = await store.actOnMatching('cancel', { group: 'g' }, 20, ALL);
    expect(out).toEqual({ ids: made.slice(1).map((r) => r.task.id), requested: [running!.task.id] });
    expect(await store.getTask(made[1]!.task.id)).toMatchObject({
      status: 'cancelled',
      error: 'cancelled by the user',
    });
    expect(await store.getTask(running!.task.id)).toMatchObject({ status: 'running', cancelRequested: true });
    expect(await store.actOnMatching('cancel', { group: 'g' }, 30, { max: 10, dryRun: true })).toEqual({
      ids: [],
      requested: [running!.task.id],
    });
  });

  it('deletes what matches except running tasks, with their history', async () => {
    const { store } = await freshQueue(backend);
    const made = await store.enqueue(tasks(3, { maxAttempts: 1 }), 0);
    const [running] = await claim(store, A, 1, 10);
    const out = await store.actOnMatching('remove', {}, 20, ALL);
    expect(out).toEqual({ ids: made.slice(1).map((r) => r.task.id), requested: [] });
    expect(await store.getTask(made[1]!.task.id)).toBeNull();
    expect((await store.listTasks({})).tasks.map((t) => t.id)).toEqual([running!.task.id]);
  });

  it('leaves a failed task whose unique key is held again, and retries only the first of two sharing one', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ unique: 'k', maxAttempts: 1 })], 0);
    const [first] = await failAll(store, 1, () => 'boom');
    await store.enqueue([task({ unique: 'k', maxAttempts: 1 })], 12);
    const [second] = await failAll(store, 1, () => 'boom', 13);
    await store.enqueue([task({ unique: 'held', maxAttempts: 1 })], 15);
    const [held] = await failAll(store, 1, () => 'boom', 16);
    await store.enqueue([task({ unique: 'held' })], 18);
    const out = await store.actOnMatching('retry', { status: ['failed'] }, 20, ALL);
    expect(out.ids).toEqual([first]);
    expect(await store.getTask(second!)).toMatchObject({ status: 'failed' });
    expect(await store.getTask(held!)).toMatchObject({ status: 'failed' });
  });
});

describe.each(backends)('failed tasks counted by error on $name', (backend) => {
  it('counts every failed task per kind and error, and nothing else', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([...tasks(3, { maxAttempts: 1 }), task({ kind: 'shell', maxAttempts: 1 })], 0);
    await failAll(store, 4, (i) => (i === 1 ? 'KeyError: x' : 'timeout'));
    // a retrying task carries an error too, but has not failed for good
    await store.enqueue([task({ maxAttempts: 2 })], 20);
    const [again] = await claim(store, A, 1, 21);
    await finish(store, A, 22, ended(again!, 'retrying', 'retry', { error: 'timeout', runAt: 99 }));
    const got = await store.failedByError();
    const byKey = (r: { kind: string; error: string | null }) => `${r.kind} ${r.error}`;
    expect([...got].sort((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual([
      { kind: 'shell', error: 'timeout', count: 1 },
      { kind: 'sleep', error: 'KeyError: x', count: 1 },
      { kind: 'sleep', error: 'timeout', count: 2 },
    ]);
  });
});
