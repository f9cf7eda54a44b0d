/**
 * graphile-worker's side of the PostgreSQL trials, each in a schema of its own, with the settings
 * its documentation gives for throughput: a local queue of 500 jobs, batched completions,
 * concurrency 32.
 */
import { makeWorkerUtils, run, Logger } from 'graphile-worker';
import pg from 'pg';
import { latencySummary, LATENCY_WARMUP, rate, sampleGap, settleHeap, sleep } from './common.ts';
import { drainWithWorkers, serveDrainWorker } from './drain-workers.ts';
import { BENCH_PG_URL, dropSchema, fill, freshSchema } from './pg-common.ts';

const silent = new Logger(() => () => {});
const TASK = 'noop';

async function withSchema<T>(fn: (schema: string) => Promise<T>): Promise<T> {
  const schema = freshSchema('graphile');
  try {
    return await fn(schema);
  } finally {
    await dropSchema(schema);
  }
}

async function utilsFor(schema: string) {
  const utils = await makeWorkerUtils({ connectionString: BENCH_PG_URL, schema, logger: silent });
  await utils.migrate();
  return utils;
}

export function enqueueSingle(a: { n: number }) {
  return withSchema(async (schema) => {
    const utils = await utilsFor(schema);
    try {
      for (let i = 0; i < 50; i++) await utils.addJob(TASK, {});
      settleHeap();
      const t = performance.now();
      for (let i = 0; i < a.n; i++) await utils.addJob(TASK, {});
      const ms = performance.now() - t;
      return { rate: rate(a.n, ms), ms };
    } finally {
      await utils.release();
    }
  });
}

export function enqueueBatch(a: { n: number; batch: number }) {
  return withSchema(async (schema) => {
    const utils = await utilsFor(schema);
    const batch = () => Array.from({ length: a.batch }, () => ({ identifier: TASK, payload: {} }));
    try {
      await utils.addJobs(batch());
      settleHeap();
      const t = performance.now();
      for (let i = 0; i < a.n; i += a.batch) await utils.addJobs(batch());
      const ms = performance.now() - t;
      return { rate: rate(a.n, ms), ms };
    } finally {
      await utils.release();
    }
  });
}

/** The runner as the drains use it: the settings graphile-worker documents for throughput. */
function runner(schema: string, onJob: () => void, pgPool?: pg.Pool) {
  return run({
    ...(pgPool ? { pgPool } : { connectionString: BENCH_PG_URL }),
    schema,
    concurrency: 32,
    noHandleSignals: true,
    pollInterval: 1000,
    logger: silent,
    preset: { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    taskList: {
      [TASK]: async () => {
        onJob();
      },
    },
  });
}

/**
 * Drains `n` jobs added beforehand (not timed) with `workers` worker processes
 * (drain-workers.ts): timed from the runners' start until each runner's stop has written every
 * completion.
 */
export function drain(a: { n: number; workers?: number }) {
  return withSchema(async (schema) => {
    const utils = await utilsFor(schema);
    await fill(a.n, (k) =>
      utils.addJobs(Array.from({ length: k }, () => ({ identifier: TASK, payload: {} }))),
    );
    await utils.release();
    settleHeap();
    const ms = await drainWithWorkers('graphile.drainWorker', { schema }, a.workers ?? 1, a.n);
    return { rate: rate(a.n, ms), ms };
  });
}

/** One worker process of a drain: connected before the start, as Semaforo's and pg-boss's are. */
export async function drainWorker(a: { schema: string }) {
  const pool = new pg.Pool({ connectionString: BENCH_PG_URL, max: 10 });
  pool.on('error', () => {});
  const warm = await Promise.all([pool.connect(), pool.connect()]);
  for (const c of warm) c.release();
  let stop = () => Promise.resolve();
  serveDrainWorker(
    async (handled) => {
      const r = await runner(a.schema, () => handled(), pool);
      stop = () => r.stop();
    },
    () => stop(),
  );
}

/** Enqueue-to-start with the runner in the same process (it hears new jobs by LISTEN/NOTIFY). */
export function latency(a: { samples: number; warmup?: number }) {
  return withSchema(async (schema) => {
    const utils = await utilsFor(schema);
    let started: ((at: number) => void) | null = null;
    const r = await runner(schema, () => started?.(performance.now()));
    try {
      const out: number[] = [];
      for (let i = 0; i < (a.warmup ?? LATENCY_WARMUP) + a.samples; i++) {
        await sampleGap();
        const begun = new Promise<number>((res) => (started = res));
        const t0 = performance.now();
        await utils.addJob(TASK, {});
        const at = await Promise.race([begun, sleep(10_000).then(() => Number.NaN)]);
        if (Number.isNaN(at)) throw new Error('a job did not start within 10 s');
        if (i >= (a.warmup ?? LATENCY_WARMUP)) out.push(at - t0);
      }
      return latencySummary(out);
    } finally {
      await r.stop();
      await utils.release();
    }
  });
}
