/**
 * plainjob's side of each trial, used as its README and its own bench/ do: better(new
 * Database(file)), defineQueue, queue.add / addMany, defineWorker with a no-op processor.
 * A worker handles one job at a time and, when it finds none, sleeps `pollIntervall` (1 s by
 * default); the latency trials set it to 20 ms, Semaforo's cross-process poll interval.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { better, defineQueue, defineWorker, type Queue } from 'plainjob';
import { PJ_TYPE, silentPjLogger as logger } from '../fixtures.ts';
import { wallMs } from '../stats.ts';
import { benchDir } from '../tmp.ts';
import {
  LATENCY_WARMUP,
  latencySummary,
  memoryFigures,
  rate,
  sampleGap,
  serveEnqueuer,
  settleHeap,
  startEnqueuer,
} from './common.ts';

const PROBE_TYPE = 'probe';
const LATENCY_POLL_MS = 20;

const open = (file: string): Queue => defineQueue({ connection: better(new Database(file)), logger });
const freshFile = () => path.join(benchDir(), 'plainjob.db');
const NOOP = { ms: 0 };

/** `warmup` calls first, untimed (default 100: the first calls of a cold process). */
export function enqueueSingle(a: { n: number; warmup?: number }) {
  const queue = open(freshFile());
  for (let i = 0; i < (a.warmup ?? 100); i++) queue.add(PJ_TYPE, NOOP);
  settleHeap();
  const t = performance.now();
  for (let i = 0; i < a.n; i++) queue.add(PJ_TYPE, NOOP);
  const ms = performance.now() - t;
  queue.close();
  return { rate: rate(a.n, ms), ms };
}

export function enqueueBatch(a: { n: number; batch: number }) {
  const queue = open(freshFile());
  const batch = Array.from({ length: a.batch }, () => NOOP);
  queue.addMany(PJ_TYPE, batch);
  settleHeap();
  const t = performance.now();
  for (let i = 0; i < a.n; i += a.batch) queue.addMany(PJ_TYPE, batch);
  const ms = performance.now() - t;
  queue.close();
  return { rate: rate(a.n, ms), ms };
}

/** Drains `n` pending jobs of a prepared file with one worker (plainjob's bench: one per process). */
export async function drain(a: { file: string; n: number }) {
  const queue = open(a.file);
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((r) => (finished = r));
  const worker = defineWorker(PJ_TYPE, async () => {}, {
    queue,
    logger,
    onCompleted: () => {
      if (++done === a.n) finished();
    },
  });
  settleHeap();
  const t = performance.now();
  void worker.start();
  await all;
  const ms = performance.now() - t;
  await worker.stop();
  queue.close();
  return { rate: rate(a.n, ms), ms, ...memoryFigures() };
}

/** Enqueue-to-start latency: `enqueue` adds one probe carrying its enqueue time, in whatever process. */
async function latency(queue: Queue, samples: number, enqueue: () => Promise<void>) {
  const out: number[] = [];
  let started: ((v: number) => void) | null = null;
  let completed: (() => void) | null = null;
  const worker = defineWorker(
    PROBE_TYPE,
    (job) => {
      started?.(wallMs() - (JSON.parse(job.data) as { t0: number }).t0);
    },
    { queue, logger, pollIntervall: LATENCY_POLL_MS, onCompleted: () => completed?.() },
  );
  void worker.start();
  for (let i = 0; i < LATENCY_WARMUP + samples; i++) {
    await sampleGap();
    const begun = new Promise<number>((r) => (started = r));
    const ended = new Promise<void>((r) => (completed = r));
    await enqueue();
    const v = await begun;
    if (i >= LATENCY_WARMUP) out.push(v);
    await ended;
  }
  await worker.stop();
  return latencySummary(out);
}

export async function latencyLocal(a: { samples: number }) {
  const queue = open(freshFile());
  const r = await latency(queue, a.samples, async () => void queue.add(PROBE_TYPE, { t0: wallMs() }));
  queue.close();
  return r;
}

export async function latencyRemote(a: { samples: number }) {
  const file = freshFile();
  const queue = open(file);
  const enqueuer = await startEnqueuer('plainjob.enqueuer', { file });
  const r = await latency(queue, a.samples, () => enqueuer.send());
  await enqueuer.stop();
  queue.close();
  return r;
}

export function enqueuer(a: { file: string }) {
  const queue = open(a.file);
  serveEnqueuer(
    () => void queue.add(PROBE_TYPE, { t0: wallMs() }),
    () => queue.close(),
  );
}
