/** What the faces read: one task with its history, pages of tasks, counts, failures and metrics. */
import { describe, expect, it } from 'vitest';
import {
  A,
  backends,
  claim,
  done,
  ended,
  finish,
  freshQueue,
  itUnless,
  retryFailed,
  task,
} from './harness.ts';

describe.each(backends)('reads on $name', (backend) => {
  it('returns a task with its attempts and actions in order, and null for an unknown id', async () => {
    const { store } = await freshQueue(backend);
    const [r] = await store.enqueue([task({ maxAttempts: 3 })], 0);
    const [first] = await claim(store, A, 1, 10);
    await finish(store, A, 20, ended(first!, 'failed', 'failed', { error: 'boom', output: 'out' }));
    await store.retry([r!.task.id], 30);
    const [second] = await claim(store, A, 1, 40);
    const t = (await store.getTask(r!.task.id))!;
    expect(t.history.map((h) => [h.type, h.outcome, h.startedAt, h.endedAt])).toEqual([
      ['attempt', 'failed', 10, 20],
      ['action', 'retried', 30, 30],
      ['attempt', 'running', 40, null],
    ]);
    expect(t.history[2]!.id).toBe(second!.historyId);
    expect(t.history.every((h) => h.taskId === t.id)).toBe(true);
    expect(await store.getTask(9999)).toBeNull();
  });

  it('records a retry with the attempt count at the time, whichever way it was asked for', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ name: 'one' }), task({ name: 'all' })], 0);
    const claimed = await claim(store, A, 2, 10);
    await finish(store, A, 20, ...claimed.map((c) => ended(c, 'failed', 'failed')));
    const [one, all] = claimed.map((c) => c.task.id);
    await store.retry([one!], 30);
    await retryFailed(store, {}, 30);
    for (const id of [one!, all!]) {
      expect((await store.getTask(id))!.history.at(-1)).toMatchObject({ outcome: 'retried', attempt: 1 });
    }
  });

  itUnless(backend, 'searchAsciiCaseOnly')('searches names case-insensitively beyond ASCII', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ name: 'Élan report' }), task({ name: 'ÖBB fares' })], 0);
    expect((await store.listTasks({ search: 'élan' })).tasks.map((t) => t.name)).toEqual(['Élan report']);
    expect((await store.listTasks({ search: 'öbb' })).tasks.map((t) => t.name)).toEqual(['ÖBB fares']);
  });

  it('lists with status, group, kind and name filters, sorting and paging', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(
      [
        task({ name: 'backup photos', group: 'disk', priority: 3, runAt: 300 }),
        task({ name: 'scrape 100%_prices', group: 'vendor', kind: 'http', priority: 1, runAt: 100 }),
        task({ name: 'Backup mail', group: 'disk', priority: 3, runAt: 200 }),
        task({ name: 'compress', group: 'disk', priority: 9, runAt: 0 }),
      ],
      0,
    );
    const [c] = await claim(store, A, 1, 0);
    expect(c!.task.name).toBe('compress');
    const list = async (q: Parameters<typeof store.listTasks>[0]) =>
      (await store.listTasks(q)).tasks.map((t) => t.name);
    expect(await list({ search: 'BACKUP' })).toEqual(['Backup mail', 'backup photos']);
    expect(await list({ search: '%_' })).toEqual(['scrape 100%_prices']);
    expect(await list({ search: '_' })).toEqual(['scrape 100%_prices']);
    expect(await list({ group: 'disk', status: ['pending'] })).toEqual(['Backup mail', 'backup photos']);
    expect(await list({ status: ['running', 'done'] })).toEqual(['compress']);
    expect(await list({ kind: 'http' })).toEqual(['scrape 100%_prices']);
    expect(await list({})).toEqual(['compress', 'Backup mail', 'scrape 100%_prices', 'backup photos']);
    expect(await list({ order: 'asc' })).toEqual([
      'backup photos',
      'scrape 100%_prices',
      'Backup mail',
      'compress',
    ]);
    expect(await list({ sort: 'runAt', order: 'asc' })).toEqual([
      'compress',
      'scrape 100%_prices',
      'Backup mail',
      'backup photos',
    ]);
    // Ties are broken by creation order, in the same direction.
    expect(await list({ sort: 'priority', order: 'asc' })).toEqual([
      'scrape 100%_prices',
      'backup photos',
      'Backup mail',
      'compress',
    ]);
    const page = await store.listTasks({ order: 'asc', limit: 2, offset: 1 });
    expect([page.total, page.tasks.map((t) => t.name)]).toEqual([4, ['scrape 100%_prices', 'Backup mail']]);
    expect((await store.listTasks({ group: 'disk', limit: 1 })).total).toBe(3);
    expect(await list({ group: 'nobody' })).toEqual([]);
  });

  it('sorts by finish time with unfinished tasks first oldest-first and last newest-first', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ name: 'early' }), task({ name: 'late' }), task({ name: 'waiting' })], 0);
    const [early, late] = await claim(store, A, 2, 10);
    await finish(store, A, 20, done(early!));
    await finish(store, A, 30, done(late!));
    const list = async (order: 'asc' | 'desc') =>
      (await store.listTasks({ sort: 'finishedAt', order })).tasks.map((t) => t.name);
    expect(await list('desc')).toEqual(['late', 'early', 'waiting']);
    expect(await list('asc')).toEqual(['waiting', 'early', 'late']);
    const finished = await store.listTasks({ sort: 'finishedAt', order: 'desc', status: ['done'] });
    expect(finished.tasks.map((t) => t.name)).toEqual(['late', 'early']);
  });

  it('finds a task by its id, its error, a word of its command, or a line of its output', async () => {
    const { store } = await freshQueue(backend);
    const [curl, py] = await store.enqueue(
      [
        task({
          name: 'sync partners',
          payload: JSON.stringify({ command: 'curl', args: ['-fsS', 'https://p.example'] }),
        }),
        task({
          name: 'nightly report',
          payload: JSON.stringify({ command: 'python3', args: ['report.py'] }),
        }),
        task({ name: 'task 416 of the old list' }),
      ],
      0,
    );
    const [a, b] = await claim(store, A, 2, 10);
    await finish(
      store,
      A,
      20,
      ended(a!, 'failed', 'failed', { error: '"curl" exited with code 7: curl: (7) Failed to connect' }),
      ended(b!, 'failed', 'failed', {
        error: '"python3" exited with code 1',
        output: "Traceback\nKeyError: 'region'\n",
      }),
    );
    const names = async (search: string) =>
      (await store.listTasks({ search })).tasks.map((t) => t.name).sort();
    expect(await names('failed to CONNECT')).toEqual(['sync partners']);
    expect(await names('keyerror')).toEqual(['nightly report']);
    expect(await names('curl')).toEqual(['sync partners']);
    expect(await names('report.py')).toEqual(['nightly report']);
    // A bare number is an id, and still a substring of names.
    expect(await names(String(py!.task.id))).toEqual(['nightly report']);
    expect(await names('416')).toEqual(['task 416 of the old list']);
    expect((await store.listTasks({ search: `#${curl!.task.id}` })).total).toBe(1);
  });

  it('searches for a backslash as itself', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue([task({ name: 'copy C:\\new' }), task({ name: 'copy C:new' })], 0);
    expect((await store.listTasks({ search: ':\\n' })).tasks.map((t) => t.name)).toEqual(['copy C:\\new']);
    expect((await store.listTasks({ search: '\\' })).total).toBe(1);
  });

  it('counts every status in total and per group, with the settings and the latest failures', async () => {
    const { store } = await freshQueue(backend);
    await store.updateGroup('quiet', { concurrency: 1 });
    await store.enqueue(
      Array.from({ length: 8 }, (_, i) => task({ name: `t${i}`, group: i % 2 ? 'a' : 'b' })),
      0,
    );
    const claimed = await claim(store, A, 5, 10);
    await finish(
      store,
      A,
      20,
      done(claimed[0]!),
      ended(claimed[1]!, 'failed', 'failed', { error: 'first' }),
      ended(claimed[2]!, 'retrying', 'retry', { runAt: 1000 }),
    );
    await finish(store, A, 30, ended(claimed[3]!, 'failed', 'failed', { error: 'second' }));
    await store.cancel([8], 40);
    const s = await store.stats(50, 1);
    expect(s.counts).toEqual({ pending: 2, running: 1, retrying: 1, done: 1, failed: 2, cancelled: 1 });
    const byName = Object.fromEntries(s.groups.map((g) => [g.name, g]));
    expect(byName.b!.counts).toEqual({
      pending: 1,
      running: 1,
      retrying: 1,
      done: 1,
      failed: 0,
      cancelled: 0,
    });
    expect(byName.a!.counts).toEqual({
      pending: 1,
      running: 0,
      retrying: 0,
      done: 0,
      failed: 2,
      cancelled: 1,
    });
    expect(byName.quiet).toMatchObject({ concurrency: 1, counts: { pending: 0 } });
    expect(s.settings).toEqual(await store.settings());
    expect(s.recentFailures.map((t) => t.error)).toEqual(['second']);
    expect((await store.stats(50, 10)).recentFailures.map((t) => t.error)).toEqual(['second', 'first']);
    expect((await store.stats(50, 0)).recentFailures).toEqual([]);
  });

  it('pages through failures oldest first from a (finishedAt, id) cursor, ties included', async () => {
    const { store } = await freshQueue(backend);
    await store.enqueue(
      Array.from({ length: 4 }, (_, i) => task({ name: `f${i}`, maxAttempts: 1 })),
      0,
    );
    const c = await claim(store, A, 4, 10);
    await finish(store, A, 20, ended(c[0]!, 'failed', 'failed'), ended(c[1]!, 'failed', 'failed'));
    await finish(store, A, 30, ended(c[2]!, 'failed', 'failed'), done(c[3]!));
    const first = await store.failedSince({ at: 0, id: 0 }, 1);
    expect(first.map((t) => t.name)).toEqual(['f0']);
    const rest = await store.failedSince({ at: first[0]!.finishedAt!, id: first[0]!.id }, 10);
    expect(rest.map((t) => t.name)).toEqual(['f1', 'f2']);
    expect(await store.failedSince({ at: 30, id: c[2]!.task.id }, 10)).toEqual([]);
  });

  it('summarises finished work per kind and group over the window', async () => {
    const { store } = await freshQueue(backend);
    /** one task of `kind` in `group`, run from `start` to `end` */
    const run = async (kind: string, group: string, start: number, end: number, ok = true) => {
      await store.enqueue([task({ kind, group })], start);
      const [c] = await claim(store, A, 1, start);
      return () => finish(store, A, end, ok ? done(c!) : ended(c!, 'failed', 'failed'));
    };
    await (
      await run('http', 'h', 0, 5)
    )(); // ends before the window
    const ends: (() => Promise<unknown>)[] = [];
    for (const ms of [50, 10, 40, 20, 30]) ends.push(await run('sleep', 'g', 10_000 - ms, 10_000));
    ends.push(await run('http', 'g', 9000, 10_000, false));
    // A cancelled task finished too, but it is neither done nor failed: not in the metrics.
    const [cancelled] = await store.enqueue([task({ group: 'g' })], 9000);
    await store.cancel([cancelled!.task.id], 9500);
    for (const end of ends) await end();
    const m = await store.metrics(10_000, 5000);
    expect(m.windowMs).toBe(5000);
    expect(m.byKind.find((r) => r.key === 'sleep')).toEqual({
      key: 'sleep',
      finished: 5,
      done: 5,
      failed: 0,
      throughput: 5 / 5,
      failureRate: 0,
      avgMs: 30,
      p50Ms: 30,
      p95Ms: 50,
    });
    expect(m.byKind.find((r) => r.key === 'http')).toMatchObject({
      finished: 1,
      done: 0,
      failed: 1,
      failureRate: 1,
    });
    expect(m.byGroup.map((r) => [r.key, r.finished, r.failureRate])).toEqual([['g', 6, 1 / 6]]);
    // the failed http task ran 1000 ms, the five sleeps 150 ms between them
    expect(m.byGroup[0]!.avgMs).toBeCloseTo(1150 / 6);
  });
});

describe.each(backends)('the finished series on $name', (backend) => {
  it('counts done and failed tasks per bucket and per group, newest first, in one read', async () => {
    const { store } = await freshQueue(backend);
    /** one task of `group` finished at `at` (claimed just before) */
    const finishAt = async (at: number, ok = true, group = 'default') => {
      await store.enqueue([task({ group })], at - 1);
      const [c] = await claim(store, A, 1, at - 1);
      await finish(store, A, at, ok ? done(c!) : ended(c!, 'failed', 'failed'));
    };
    // now 1000, buckets of 100: (900, 1000] and later, (800, 900], [700, 800]
    for (const at of [699, 700, 750, 850, 900, 950, 1000, 1005]) await finishAt(at, at !== 750);
    await finishAt(720, false, 'billing');
    await finishAt(960, true, 'billing');
    // a cancelled task ended too, but it is neither done nor failed
    const [cancelled] = await store.enqueue([task({ group: 'billing' })], 800);
    await store.cancel([cancelled!.task.id], 960);
    const counts = (done: number, failed: number) => ({ done, failed });
    expect(await store.finishedSeries(1000, 100, 3)).toEqual([
      {
        ...counts(4, 0),
        groups: new Map([
          ['default', counts(3, 0)],
          ['billing', counts(1, 0)],
        ]),
      },
      { ...counts(2, 0), groups: new Map([['default', counts(2, 0)]]) },
      {
        ...counts(1, 2),
        groups: new Map([
          ['default', counts(1, 1)],
          ['billing', counts(0, 1)],
        ]),
      },
    ]);
    // A window with nothing in it has every bucket at zero.
    expect(await store.finishedSeries(100_000, 100, 2)).toEqual([
      { done: 0, failed: 0, groups: new Map() },
      { done: 0, failed: 0, groups: new Map() },
    ]);
  });
});
