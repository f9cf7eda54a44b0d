/**
 * BullMQ's side of each trial, as its docs and benchmarks use it: Queue.add / addBulk, a Worker
 * with a no-op processor and a concurrency, counting 'completed' events. Redis runs with no
 * persistence (started by peers/redis.ts), so BullMQ's figures carry no durability cost at all.
 */
import { Queue, Worker, type Job } from 'bullmq';
import { wallMs } from '../stats.ts';
import {
  BULLMQ_CONCURRENCY,
  LATENCY_WARMUP,
  latencySummary,
  rate,
  sampleGap,
  serveEnqueuer,
  settleHeap,
  startEnqueuer,
} from './common.ts';
import { connectRedis, type RedisClient } from './redis.ts';

const NAME = 'bench';
const NOOP = { ms: 0 };

async function fresh(port: number): Promise<RedisClient> {
  const redis = connectRedis(port);
  await redis.flushall();
  return redis;
}

export async function enqueueSingle(a: { n: number; port: number }) {
  const redis = await fresh(a.port);
  const queue = new Queue(NAME, { connection: redis });
  for (let i = 0; i < 100; i++) await queue.add(NAME, NOOP);
  settleHeap();
  const t = performance.now();
  for (let i = 0; i < a.n; i++) await queue.add(NAME, NOOP);
  const ms = performance.now() - t;
  await queue.close();
  await redis.quit();
  return { rate: rate(a.n, ms), ms };
}

export async function enqueueBatch(a: { n: number; batch: number; port: number }) {
  const redis = await fresh(a.port);
  const queue = new Queue(NAME, { connection: redis });
  const batch = Array.from({ length: a.batch }, () => ({ name: NAME, data: NOOP }));
  await queue.addBulk(batch);
  settleHeap();
  const t = performance.now();
  for (let i = 0; i < a.n; i += a.batch) await queue.addBulk(batch);
  const ms = performance.now() - t;
  await queue.close();
  await redis.quit();
  return { rate: rate(a.n, ms), ms };
}

/** Adds `n` jobs (not timed), then times one Worker draining them. */
export async function drain(a: { n: number; port: number; concurrency?: number }) {
  const redis = await fresh(a.port);
  const queue = new Queue(NAME, { connection: redis });
  for (let i = 0; i < a.n; i += 1000) {
    const k = Math.min(1000, a.n - i);
    await queue.addBulk(Array.from({ length: k }, () => ({ name: NAME, data: NOOP })));
  }
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((r) => (finished = r));
  const worker = new Worker(NAME, async () => {}, {
    connection: redis,
    concurrency: a.concurrency ?? BULLMQ_CONCURRENCY,
    autorun: false,
  });
  worker.on('completed', () => {
    if (++done === a.n) finished();
  });
  await worker.waitUntilReady();
  settleHeap();
  const t = performance.now();
  void worker.run();
  await all;
  const ms = performance.now() - t;
  await worker.close();
  await queue.close();
  await redis.quit();
  return { rate: rate(a.n, ms), ms };
}

async function latency(port: number, samples: number, enqueue: () => Promise<void>) {
  const redis = connectRedis(port);
  const out: number[] = [];
  let started: ((v: number) => void) | null = null;
  let completed: (() => void) | null = null;
  const worker = new Worker(
    'probe',
    async (job: Job<{ t0: number }>) => {
      started?.(wallMs() - job.data.t0);
    },
    { connection: redis, concurrency: 1 },
  );
  worker.on('completed', () => completed?.());
  await worker.waitUntilReady();
  for (let i = 0; i < LATENCY_WARMUP + samples; i++) {
    await sampleGap();
    const begun = new Promise<number>((r) => (started = r));
    const ended = new Promise<void>((r) => (completed = r));
    await enqueue();
    const v = await begun;
    if (i >= LATENCY_WARMUP) out.push(v);
    await ended;
  }
  await worker.close();
  await redis.quit();
  return latencySummary(out);
}

export async function latencyLocal(a: { samples: number; port: number }) {
  const redis = await fresh(a.port);
  const queue = new Queue('probe', { connection: redis });
  const r = await latency(a.port, a.samples, async () => void (await queue.add('probe', { t0: wallMs() })));
  await queue.close();
  await redis.quit();
  return r;
}

export async function latencyRemote(a: { samples: number; port: number }) {
  const redis = await fresh(a.port);
  await redis.quit();
  const enqueuer = await startEnqueuer('bullmq.enqueuer', { port: a.port });
  const r = await latency(a.port, a.samples, () => enqueuer.send());
  await enqueuer.stop();
  return r;
}

export async function enqueuer(a: { port: number }) {
  const redis = connectRedis(a.port);
  const queue = new Queue('probe', { connection: redis });
  await queue.waitUntilReady();
  serveEnqueuer(
    async () => void (await queue.add('probe', { t0: wallMs() })),
    async () => {
      await queue.close();
      await redis.quit();
    },
  );
}
