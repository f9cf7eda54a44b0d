/**
 * Semaforo's side of each trial, run inside a trial child process (worker-child.ts). Every trial
 * uses the public engine API only: createEngine, enqueue, enqueueMany, start, stats, listTasks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { createEngine, type Engine, type EngineOptions } from '../../../electron/core/engine.ts';
import { parseTaskSpecNow } from '../../../shared/task-spec-now.ts';
import { NOOP_SPEC } from '../fixtures.ts';
import { median, wallMs } from '../stats.ts';
import { benchDir } from '../tmp.ts';
import {
  LATENCY_WARMUP,
  latencySummary,
  memoryFigures,
  rate,
  sampleGap,
  serveEnqueuer,
  settleHeap,
  sleep,
  startEnqueuer,
} from './common.ts';
import { PROBE_KIND, probeHandler, setProbeHook } from './probe.ts';

const open = (file: string, extra: Partial<EngineOptions> = {}) =>
  createEngine({ file, handlers: [probeHandler], ...extra });

const freshFile = () => path.join(benchDir(), 'queue.db');

/** Resolves when `done` tasks are done, checking the counters (an O(groups) read) every `everyMs`. */
async function untilDone(engine: Engine, done: number, everyMs = 5): Promise<void> {
  while ((await engine.stats(0)).counts.done < done) await sleep(everyMs);
}

/** `warmup` calls first, untimed (default 100: the first calls of a cold process). */
export async function enqueueSingle(a: { n: number; warmup?: number }) {
  const engine = await open(freshFile());
  for (let i = 0; i < (a.warmup ?? 100); i++) await engine.enqueue(parseTaskSpecNow(NOOP_SPEC));
  settleHeap();
  const t = performance.now();
  for (let i = 0; i < a.n; i++) await engine.enqueue(parseTaskSpecNow(NOOP_SPEC));
  const ms = performance.now() - t;
  const moveMs = await moveIn(engine);
  void engine.close();
  return { rate: rate(a.n, ms), ms, withMove: rate(a.n, ms + moveMs) };
}

/**
 * An enqueue leaves its tasks in the inbox; the next write transaction of any process moves
 * them into tasks (inbox.ts). A read does that too: its time is what the move costs.
 */
async function moveIn(engine: Engine): Promise<number> {
  const t = performance.now();
  await engine.stats(0);
  return performance.now() - t;
}

export async function enqueueBatch(a: { n: number; batch: number }) {
  const engine = await open(freshFile());
  const batch = Array.from({ length: a.batch }, () => NOOP_SPEC);
  await engine.enqueueMany(batch.map((x) => parseTaskSpecNow(x)));
  settleHeap();
  const t = performance.now();
  for (let i = 0; i < a.n; i += a.batch) await engine.enqueueMany(batch.map((x) => parseTaskSpecNow(x)));
  const ms = performance.now() - t;
  const moveMs = await moveIn(engine);
  void engine.close();
  return { rate: rate(a.n, ms), ms, withMove: rate(a.n, ms + moveMs) };
}

/**
 * Drains the `n` pending tasks of a prepared file: claim, lease, run, write the result.
 * `durability: 'normal'` is plainjob's setting (no fsync per commit), for comparison only;
 * `groupCommit` turns on the opt-in shared fsync (engine option groupCommit).
 */
export async function drain(a: { file: string; n: number; durability?: 'normal'; groupCommit?: boolean }) {
  const engine = await open(a.file, {
    ...(a.durability ? { sqlite: { durability: a.durability } } : {}),
    groupCommit: a.groupCommit === true,
  });
  const before = (await engine.stats(0)).counts.done;
  const target = before + a.n;
  settleHeap();
  const t = performance.now();
  engine.start();
  // The first end, looked for every millisecond: what came before it is the dispatcher's start
  // (on a file over 64 MB, its integrity check: a read of every page) and the first tick.
  let doneAtFirst: number;
  while ((doneAtFirst = (await engine.stats(0)).counts.done) === before) await sleep(1);
  const startupMs = performance.now() - t;
  await untilDone(engine, target);
  const ms = performance.now() - t;
  await engine.close();
  return {
    rate: rate(a.n, ms),
    ms,
    startupMs,
    steadyRate: rate(target - doneAtFirst, ms - startupMs),
    ...memoryFigures(),
  };
}

export async function latencyLocal(a: { samples: number }) {
  const engine = await open(freshFile());
  let started: ((at: number) => void) | null = null;
  setProbeHook({ start: (at) => started?.(at) });
  engine.start();
  const out: number[] = [];
  for (let i = 0; i < LATENCY_WARMUP + a.samples; i++) {
    await sampleGap();
    const begun = new Promise<number>((r) => (started = r));
    const t0 = wallMs();
    await engine.enqueue(parseTaskSpecNow({ kind: PROBE_KIND, payload: {} }));
    const at = await begun;
    if (i >= LATENCY_WARMUP) out.push(at - t0);
    await engine.whenIdle();
  }
  await engine.close();
  return latencySummary(out);
}

/** The worker here, the enqueue in another process opening the same file. */
export async function latencyRemote(a: { samples: number }) {
  const file = freshFile();
  const engine = await open(file);
  let started: ((lat: number) => void) | null = null;
  setProbeHook({ start: (at, p) => started?.(at - p.t0!) });
  engine.start();
  const enqueuer = await startEnqueuer('semaforo.enqueuer', { file });
  const out: number[] = [];
  for (let i = 0; i < LATENCY_WARMUP + a.samples; i++) {
    await sampleGap();
    const begun = new Promise<number>((r) => (started = r));
    await enqueuer.send();
    const lat = await begun;
    if (i >= LATENCY_WARMUP) out.push(lat);
    await engine.whenIdle();
  }
  await enqueuer.stop();
  await engine.close();
  return latencySummary(out);
}

export async function enqueuer(a: { file: string }) {
  const engine = await open(a.file);
  serveEnqueuer(
    () => void engine.enqueue(parseTaskSpecNow({ kind: PROBE_KIND, payload: { t0: wallMs() } })),
    () => engine.close(),
  );
}

/**
 * One worker of the limits scenario: drains probes until `total` are done (other workers may
 * share the file) and writes each start and end it saw to `out`, for the overlap check.
 */
export async function limitsWorker(a: { file: string; total: number; out: string }) {
  const engine = await open(a.file);
  const runs: [number, string, number, number][] = [];
  setProbeHook({ end: (end, start, task) => runs.push([task.id, task.group, start, end]) });
  const startedAt = wallMs();
  engine.start();
  await untilDone(engine, a.total, 10);
  const endedAt = wallMs();
  await engine.close();
  fs.writeFileSync(a.out, JSON.stringify(runs));
  return { startedAt, endedAt, ran: runs.length };
}

const ELD_RESOLUTION_MS = 2;

/**
 * The histogram records the whole interval between its timer's runs, resolution included
 * (an idle loop shows ~2 ms at 2 ms resolution): the delay is what lies beyond the resolution.
 */
function eld(h: IntervalHistogram) {
  const d = (ns: number) => Math.max(0, ns / 1e6 - ELD_RESOLUTION_MS);
  return { p50: d(h.percentile(50)), p99: d(h.percentile(99)), max: d(h.max) };
}

/**
 * Event-loop delay of the process hosting the engine while it drains at full speed, optionally
 * with the dashboard's refresh (stats + first list page, 5 times a second) running meanwhile.
 * The same process idle for a second first gives the machine's baseline.
 */
export async function eventLoopDelay(a: { file: string; n: number; dashboard: boolean }) {
  const engine = await open(a.file);
  const target = (await engine.stats(0)).counts.done + a.n;
  const idle = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  idle.enable();
  await sleep(1000);
  idle.disable();
  const h = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  const queryMs: number[] = [];
  let timer: ReturnType<typeof setInterval> | null = null;
  settleHeap();
  h.enable();
  const t = performance.now();
  engine.start();
  if (a.dashboard) {
    timer = setInterval(async () => {
      const q = performance.now();
      await engine.stats(5);
      await engine.listTasks({ limit: 100 });
      queryMs.push(performance.now() - q);
    }, 200);
  }
  await untilDone(engine, target);
  const ms = performance.now() - t;
  h.disable();
  if (timer) clearInterval(timer);
  await engine.close();
  const busy = eld(h);
  const base = eld(idle);
  return {
    rate: rate(a.n, ms),
    eldP50: busy.p50,
    eldP99: busy.p99,
    eldMax: busy.max,
    idleP99: base.p99,
    idleMax: base.max,
    refreshes: queryMs.length,
    refreshMedianMs: median(queryMs) ?? 0,
    refreshMaxMs: queryMs.length ? Math.max(...queryMs) : 0,
  };
}

/** Median time of each dashboard query against the file as it is (no dispatching). */
export async function queries(a: { file: string; runs: number }) {
  const engine = await open(a.file);
  const someId = (await engine.listTasks({ limit: 1, offset: 1000 })).tasks[0]!.id;
  const cases: Record<string, () => unknown> = {
    listFirstPage: () => engine.listTasks({ limit: 100 }),
    listDoneByFinished: () => engine.listTasks({ status: ['done'], sort: 'finishedAt', limit: 100 }),
    listPending: () => engine.listTasks({ status: ['pending'], limit: 100 }),
    listFailedInGroup: () => engine.listTasks({ status: ['failed'], group: 'default', limit: 100 }),
    listSearch: () => engine.listTasks({ search: 'report 42', limit: 100 }),
    listDeepPage: () => engine.listTasks({ limit: 100, offset: 50_000 }),
    stats: () => engine.stats(5),
    getTask: () => engine.getTask(someId),
  };
  const out: Record<string, number> = {};
  for (const [name, fn] of Object.entries(cases)) {
    for (let i = 0; i < 3; i++) fn();
    const times: number[] = [];
    for (let i = 0; i < a.runs; i++) {
      const t = performance.now();
      fn();
      times.push(performance.now() - t);
    }
    out[name] = median(times)!;
    out[`${name}Max`] = Math.max(...times);
  }
  void engine.close();
  return out;
}
