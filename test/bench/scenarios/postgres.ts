/**
 * 9. The PostgreSQL store against the PostgreSQL queues (graphile-worker, pg-boss), on the same
 * server, in the same run, alternating: drain by one worker process and by three (limits off, and
 * on for Semaforo), enqueue-to-start latency, enqueue one at a time and in batches. Each trial
 * works in a fresh schema, dropped afterwards.
 */
import { median, percentile, ratio } from '../stats.ts';
import { runTrial, type TrialResult } from '../trial.ts';
import {
  alternate,
  atLeastRatio,
  makeRow,
  pick,
  withValues,
  type Goal,
  type Row,
  type Scenario,
  type System,
} from '../scenario.ts';

function pooled(results: Partial<Record<System, TrialResult[]>>, q: number): Row['values'] {
  const out: Row['values'] = {};
  for (const [s, list] of Object.entries(results) as [System, TrialResult[]][])
    out[s] = percentile(
      list.flatMap((r) => r.samples as number[]),
      q,
    );
  return out;
}

const semaforoAtLeast =
  (min: number, text: string) =>
  (row: Row): Goal => {
    const v = row.values.semaforo;
    return { text, met: v === null || v === undefined ? null : v >= min };
  };

export const postgres: Scenario = {
  name: 'postgres',
  title: '9. PostgreSQL',
  async run(ctx) {
    if (ctx.pgSkipped) throw new Error(ctx.pgSkipped);
    const n = ctx.quick ? 5_000 : 50_000;
    const single = ctx.quick ? 500 : 2_000;
    const batch = 1_000;
    const samples = ctx.quick ? 20 : 100;
    const warmup = 10;
    const drainBy = (workers: number) => ({
      semaforo: () => runTrial('semaforo-pg.drain', { n, workers }),
      graphile: () => runTrial('graphile.drain', { n, workers }),
      pgboss: () => runTrial('pgboss.drain', { n, workers }),
    });
    const one = await alternate(ctx, 'pg drain, one worker process', drainBy(1));
    const three = await alternate(ctx, 'pg drain, three worker processes', drainBy(3));
    const limited = await alternate(ctx, 'pg drain, limits on', {
      semaforo: () => runTrial('semaforo-pg.drain', { n, limits: true }),
    });
    const lat = await alternate(ctx, 'pg enqueue-to-start latency', {
      semaforo: () => runTrial('semaforo-pg.latency', { samples, warmup }),
      graphile: () => runTrial('graphile.latency', { samples, warmup }),
      pgboss: () => runTrial('pgboss.latency', { samples, warmup }),
    });
    const ones = await alternate(ctx, 'pg enqueue one at a time', {
      semaforo: () => runTrial('semaforo-pg.enqueueSingle', { n: single }),
      graphile: () => runTrial('graphile.enqueueSingle', { n: single }),
      pgboss: () => runTrial('pgboss.enqueueSingle', { n: single }),
    });
    const batches = await alternate(ctx, 'pg enqueue in batches', {
      semaforo: () => runTrial('semaforo-pg.enqueueBatch', { n, batch }),
      graphile: () => runTrial('graphile.enqueueBatch', { n, batch }),
      pgboss: () => runTrial('pgboss.enqueueBatch', { n, batch }),
    });
    const off = pick(one, 'rate').semaforo ?? [];
    const on = pick(limited, 'rate').semaforo ?? [];
    const cost = ratio(median(off), median(on));
    const label = n.toLocaleString('en-US');
    const pooledN = samples * ctx.rounds;
    return {
      name: this.name,
      title: this.title,
      setup: { tasks: n, single, batch, latencySamplesPerRound: samples, latencyWarmup: warmup },
      rows: [
        makeRow(
          `drain ${label} no-op tasks, one worker process`,
          'tasks/s',
          'higher',
          pick(one, 'rate'),
          atLeastRatio('graphile', 1, 2),
        ),
        makeRow(
          'same, three worker processes',
          'tasks/s',
          'higher',
          pick(three, 'rate'),
          atLeastRatio('graphile', 1, 2),
        ),
        // The floor is for the drain with group limits on, so it is judged on that row.
        makeRow(
          'one worker process, in a group with concurrency and rate limits',
          'tasks/s',
          'higher',
          { semaforo: on },
          semaforoAtLeast(10_000, '>= 10,000/s'),
        ),
        withValues('limits off / limits on (time)', 'x', 'lower', { semaforo: cost }, {}, (row) => ({
          text: '<= 1.5x',
          met:
            row.values.semaforo === null || row.values.semaforo === undefined
              ? null
              : row.values.semaforo <= 1.5,
        })),
        withValues(`enqueue-to-start p50 (${pooledN} samples)`, 'ms', 'lower', pooled(lat, 0.5)),
        withValues('enqueue-to-start p99', 'ms', 'lower', pooled(lat, 0.99)),
        makeRow(
          `enqueue one at a time (${single.toLocaleString('en-US')} calls)`,
          'tasks/s',
          'higher',
          pick(ones, 'rate'),
        ),
        makeRow(
          `batches of ${batch.toLocaleString('en-US')} (${label} tasks)`,
          'tasks/s',
          'higher',
          pick(batches, 'rate'),
        ),
      ],
      checks: [],
      notes: [
        'One PostgreSQL 15 on this machine, shared by the client processes (2 cores in all). Drains ' +
          '(peers/drain-workers.ts): the queue is filled first (not timed), then each worker process, already ' +
          'connected, is told to start; each counts the jobs its handler ran, and once they add up to all of ' +
          'them each writes its last completions (graphile-worker: runner.stop(); pg-boss: a graceful stop; ' +
          'Semaforo: whenIdle) before the clock stops. Semaforo: global limit 10,000, default claimBatch; ' +
          '"limits on" puts every task in a group with concurrency 5,000 and a rate window of 1,000,000/s (too ' +
          'wide to bind, so only their checks cost). graphile-worker 0.18: concurrency 32, a local queue of 500, ' +
          'completions batched (completeJobBatchDelay 0). pg-boss 12: batchSize 100, localConcurrency 4, polling ' +
          '0.5 s, burstWhenBatchFull. Neither peer has a global or a per-group concurrency limit of ' +
          "Semaforo's kind, nor rate windows. Latency: one job at a time, enqueued in the worker's own process " +
          'after a random 1-21 ms pause, to its handler start; pg-boss polls (0.5 s is its minimum).',
      ],
    };
  },
};
