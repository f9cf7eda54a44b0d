/**
 * pg-boss's side of the PostgreSQL trials, each in a schema of its own: workers fetch in batches
 * of 100 (one handler call per batch), four of them, polling every 0.5 s (its minimum) and without
 * a pause while batches come back full.
 */
import { PgBoss } from 'pg-boss';
import { latencySummary, LATENCY_WARMUP, rate, sampleGap, settleHeap, sleep } from './common.ts';
import { drainWithWorkers, serveDrainWorker } from './drain-workers.ts';
import { BENCH_PG_URL, dropSchema, fill, freshSchema } from './pg-common.ts';

const QUEUE = 'noop';

async function withBoss<T>(schema: string, fn: (boss: PgBoss) => Promise<T>): Promise<T> {
  const boss = newBoss(schema);
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
  return withBoss(freshSchema('pgboss'), async (boss) => {
    for (let i = 0; i < 50; i++) await boss.send(QUEUE, {});
    settleHeap();
    const t = performance.now();
    for (let i = 0; i < a.n; i++) await boss.send(QUEUE, {});
    const ms = performance.now() - t;
    return { rate: rate(a.n, ms), ms };
  });
}

export function enqueueBatch(a: { n: number; batch: number }) {
  return withBoss(freshSchema('pgboss'), async (boss) => {
    const batch = () => Array.from({ length: a.batch }, () => ({ data: {} }));
    await boss.insert(QUEUE, batch());
    settleHeap();
    const t = performance.now();
    for (let i = 0; i < a.n; i += a.batch) await boss.insert(QUEUE, batch());
    const ms = performance.now() - t;
    return { rate: rate(a.n, ms), ms };
  });
}

const WORK = { batchSize: 100, localConcurrency: 4, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true };

const newBoss = (schema: string) => {
  const boss = new PgBoss({ connectionString: BENCH_PG_URL, schema });
  boss.on('error', () => {});
  return boss;
};

/**
 * Drains `n` jobs inserted beforehand (not timed) with `workers` worker processes
 * (drain-workers.ts): timed from the first work() until every handled batch's completion is
 * written (a graceful stop waits for the last).
 */
export function drain(a: { n: number; workers?: number }) {
  const schema = freshSchema('pgboss');
  return withBoss(schema, async (boss) => {
    await fill(a.n, (k) =>
      boss.insert(
        QUEUE,
        Array.from({ length: k }, () => ({ data: {} })),
      ),
    );
    settleHeap();
    const ms = await drainWithWorkers('pgboss.drainWorker', { schema }, a.workers ?? 1, a.n);
    return { rate: rate(a.n, ms), ms };
  });
}

/** One worker process of a drain, started (connected, schema checked) before the start. */
export async function drainWorker(a: { schema: string }) {
  const boss = newBoss(a.schema);
  await boss.start();
  serveDrainWorker(
    async (handled) => {
      await boss.work(QUEUE, WORK, async (jobs) => {
        handled(jobs.length);
      });
    },
    () => boss.stop({ graceful: true, timeout: 30_000 }),
  );
}

/** Enqueue-to-start with the worker in the same process (pg-boss polls, at its 0.5 s minimum). */
export function latency(a: { samples: number; warmup?: number }) {
  return withBoss(freshSchema('pgboss'), async (boss) => {
    let started: ((at: number) => void) | null = null;
    await boss.work(QUEUE, { ...WORK, batchSize: 1 }, async () => {
      started?.(performance.now());
    });
    const out: number[] = [];
    for (let i = 0; i < (a.warmup ?? LATENCY_WARMUP) + a.samples; i++) {
      await sampleGap();
      const begun = new Promise<number>((res) => (started = res));
      const t0 = performance.now();
      await boss.send(QUEUE, {});
      const at = await Promise.race([begun, sleep(10_000).then(() => Number.NaN)]);
      if (Number.isNaN(at)) throw new Error('a job did not start within 10 s');
      if (i >= (a.warmup ?? LATENCY_WARMUP)) out.push(at - t0);
    }
    return latencySummary(out);
  });
}
