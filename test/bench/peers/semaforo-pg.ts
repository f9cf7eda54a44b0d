/** Semaforo on its PostgreSQL store, each trial in a schema of its own (public engine API only). */
import { createEngine, type Engine } from '../../../electron/core/engine.ts';
import { parseTaskSpecNow } from '../../../shared/task-spec-now.ts';
import { NOOP_SPEC } from '../fixtures.ts';
import { rate, settleHeap, sleep } from './common.ts';
import { BENCH_PG_URL, dropSchema, fill, freshSchema } from './pg-common.ts';

async function withQueue<T>(fn: (engine: Engine) => Promise<T>): Promise<T> {
  const schema = freshSchema('semaforo');
  const u = new URL(BENCH_PG_URL);
  u.searchParams.set('schema', schema);
  const engine = await createEngine({ file: u.toString() });
  try {
    return await fn(engine);
  } finally {
    await engine.close();
    await dropSchema(schema);
  }
}

const spec = (group?: string) => parseTaskSpecNow(group ? { ...NOOP_SPEC, group } : NOOP_SPEC);

export function enqueueSingle(a: { n: number }) {
  return withQueue(async (engine) => {
    for (let i = 0; i < 50; i++) await engine.enqueue(spec());
    settleHeap();
    const t = performance.now();
    for (let i = 0; i < a.n; i++) await engine.enqueue(spec());
    const ms = performance.now() - t;
    return { rate: rate(a.n, ms), ms };
  });
}

export function enqueueBatch(a: { n: number; batch: number }) {
  return withQueue(async (engine) => {
    const batch = () => Array.from({ length: a.batch }, () => spec());
    await engine.enqueueMany(batch());
    settleHeap();
    const t = performance.now();
    for (let i = 0; i < a.n; i += a.batch) await engine.enqueueMany(batch());
    const ms = performance.now() - t;
    return { rate: rate(a.n, ms), ms };
  });
}

/**
 * Drains `n` no-op tasks enqueued beforehand (not timed). `limits`: in a group with a
 * concurrency limit and a rate window, both too wide to bind, so the drain pays for the checks.
 */
export function drain(a: { n: number; limits?: boolean }) {
  return withQueue(async (engine) => {
    await engine.updateSettings({ globalConcurrency: 10_000 });
    const group = a.limits ? 'limited' : undefined;
    if (group)
      await engine.updateGroup(group, { concurrency: 5_000, rate: { limit: 1_000_000, periodMs: 1000 } });
    await fill(a.n, (k) => engine.enqueueMany(Array.from({ length: k }, () => spec(group))));
    settleHeap();
    const t = performance.now();
    engine.start();
    while ((await engine.stats(0)).counts.done < a.n) await sleep(5);
    const ms = performance.now() - t;
    return { rate: rate(a.n, ms), ms };
  });
}
