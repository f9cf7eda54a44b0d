/**
 * graphile-worker's side of the PostgreSQL trials, each in a schema of its own, with the settings
 * its documentation gives for throughput: a local queue of 500 jobs, batched completions,
 * concurrency 32.
 */
import { makeWorkerUtils, run, Logger } from 'graphile-worker';
import { rate, settleHeap } from './common.ts';
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

/** Timed from the runner's start until its stop has written every completion. */
export function drain(a: { n: number }) {
  return withSchema(async (schema) => {
    const utils = await utilsFor(schema);
    await fill(a.n, (k) =>
      utils.addJobs(Array.from({ length: k }, () => ({ identifier: TASK, payload: {} }))),
    );
    await utils.release();
    settleHeap();
    let done = 0;
    let finished = () => {};
    const all = new Promise<void>((r) => (finished = r));
    const t = performance.now();
    const runner = await run({
      connectionString: BENCH_PG_URL,
      schema,
      concurrency: 32,
      noHandleSignals: true,
      pollInterval: 1000,
      logger: silent,
      preset: { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      taskList: {
        [TASK]: async () => {
          if (++done === a.n) finished();
        },
      },
    });
    await all;
    await runner.stop();
    const ms = performance.now() - t;
    return { rate: rate(a.n, ms), ms };
  });
}
