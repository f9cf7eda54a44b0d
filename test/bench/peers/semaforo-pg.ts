/** Semaforo on its PostgreSQL store, each trial in a schema of its own (public engine API only). */
import { createEngine, type Engine } from '../../../electron/core/engine.ts';
import { parseTaskSpecNow } from '../../../shared/task-spec-now.ts';
import { NOOP_SPEC } from '../fixtures.ts';
import { latencySummary, LATENCY_WARMUP, rate, sampleGap, settleHeap, sleep } from './common.ts';
import { drainWithWorkers, serveDrainWorker } from './drain-workers.ts';
import { BENCH_PG_URL, dropSchema, fill, freshSchema } from './pg-common.ts';
import { PROBE_KIND, probeHandler, setProbeHook } from './probe.ts';

const urlOf = (schema: string) => {
  const u = new URL(BENCH_PG_URL);
  u.searchParams.set('schema', schema);
  return u.toString();
};

const open = (schema: string) => createEngine({ file: urlOf(schema), handlers: [probeHandler] });

async function withQueue<T>(fn: (engine: Engine, schema: string) => Promise<T>): Promise<T> {
  const schema = freshSchema('semaforo');
  const engine = await open(schema);
  try {
    return await fn(engine, schema);
  } finally {
    await engine.close();
    await dropSchema(schema);
  }
}

const spec = (group?: string) => parseTaskSpecNow(group ? { ...NOOP_SPEC, group } : NOOP_SPEC);
/** A no-op that tells the drain worker it ran (probe.ts). */
const probe = (group?: string) =>
  parseTaskSpecNow({ kind: PROBE_KIND, payload: {}, ...(group !== undefined && { group }) });

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
 * Drains `n` no-op tasks enqueued beforehand (not timed) with `workers` worker processes
 * (drain-workers.ts). `limits`: in a group with a concurrency limit and a rate window, both too
 * wide to bind, so the drain pays for the checks.
 */
export function drain(a: { n: number; workers?: number; limits?: boolean }) {
  return withQueue(async (engine, schema) => {
    await engine.updateSettings({ globalConcurrency: 10_000 });
    const group = a.limits ? 'limited' : undefined;
    if (group)
      await engine.updateGroup(group, { concurrency: 5_000, rate: { limit: 1_000_000, periodMs: 1000 } });
    await fill(a.n, (k) => engine.enqueueMany(Array.from({ length: k }, () => probe(group))));
    settleHeap();
    const ms = await drainWithWorkers('semaforo-pg.drainWorker', { schema }, a.workers ?? 1, a.n);
    const done = (await engine.stats(0)).counts.done;
    if (done !== a.n) throw new Error(`drained ${done} of ${a.n}`);
    return { rate: rate(a.n, ms), ms };
  });
}

/** One worker process of a drain: starts on 'go', writes every finish before it says stopped. */
export async function drainWorker(a: { schema: string }) {
  const engine = await open(a.schema);
  serveDrainWorker(
    (handled) => {
      setProbeHook({ end: () => handled() });
      engine.start();
    },
    () => engine.whenIdle(),
  );
}

/** Enqueue-to-start in the worker's own process, one task at a time (its start via NOTIFY or at once). */
export function latency(a: { samples: number; warmup?: number }) {
  return withQueue(async (engine) => {
    let started: ((at: number) => void) | null = null;
    setProbeHook({ start: () => started?.(performance.now()) });
    engine.start();
    const out: number[] = [];
    for (let i = 0; i < (a.warmup ?? LATENCY_WARMUP) + a.samples; i++) {
      await sampleGap();
      const begun = new Promise<number>((r) => (started = r));
      const t0 = performance.now();
      await engine.enqueue(probe());
      const at = await Promise.race([begun, sleep(10_000).then(() => Number.NaN)]);
      if (Number.isNaN(at)) throw new Error('a probe did not start within 10 s');
      if (i >= (a.warmup ?? LATENCY_WARMUP)) out.push(at - t0);
    }
    return latencySummary(out);
  });
}
