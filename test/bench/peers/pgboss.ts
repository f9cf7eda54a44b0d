/**
 * pg-boss's side of the PostgreSQL trials, each in a schema of its own: workers fetch in batches
 * of 100 (one handler call per batch), four of them, polling every 0.5 s (its minimum) and without
 * a pause while batches come back full.
 */
import { PgBoss } from 'pg-boss';
import { rate, settleHeap } from './common.ts';
import { BENCH_PG_URL, dropSchema, fill, freshSchema } from './pg-common.ts';

const QUEUE = 'noop';

async function withBoss<T>(fn: (boss: PgBoss) => Promise<T>): Promise<T> {
  const schema = freshSchema('pgboss');
  const boss = new PgBoss({ connectionString: BENCH_PG_URL, schema });
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue(QUEUE);
  try {
    return await fn(boss);
  } finally {
    await boss.stop({ graceful: false, timeout: 1000 }).catch(() => {});
    await dropSchema(schema);
  }
}

export function enqueueSingle(a: { n: number }) {
  return withBoss(async (boss) => {
    for (let i = 0; i < 50; i++) await boss.send(QUEUE, {});
    settleHeap();
    const t = performance.now();
    for (let i = 0; i < a.n; i++) await boss.send(QUEUE, {});
    const ms = performance.now() - t;
    return { rate: rate(a.n, ms), ms };
  });
}

export function enqueueBatch(a: { n: number; batch: number }) {
  return withBoss(async (boss) => {
    const batch = () => Array.from({ length: a.batch }, () => ({ data: {} }));
    await boss.insert(QUEUE, batch());
    settleHeap();
    const t = performance.now();
    for (let i = 0; i < a.n; i += a.batch) await boss.insert(QUEUE, batch());
    const ms = performance.now() - t;
    return { rate: rate(a.n, ms), ms };
  });
}

/** Timed from the first work() until every handled batch's completion is written. */
export function drain(a: { n: number }) {
  return withBoss(async (boss) => {
    await fill(a.n, (k) =>
      boss.insert(
        QUEUE,
        Array.from({ length: k }, () => ({ data: {} })),
      ),
    );
    settleHeap();
    let done = 0;
    let finished = () => {};
    const all = new Promise<void>((r) => (finished = r));
    const t = performance.now();
    await boss.work(
      QUEUE,
      { batchSize: 100, localConcurrency: 4, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
      async (jobs) => {
        done += jobs.length;
        if (done >= a.n) finished();
      },
    );
    await all;
    // The last batch's completion is written after its handler returns: a graceful stop waits for it.
    await boss.stop({ graceful: true, timeout: 30_000 });
    const ms = performance.now() - t;
    return { rate: rate(a.n, ms), ms };
  });
}
