/**
 * 9. The PostgreSQL store against the PostgreSQL queues (graphile-worker, pg-boss), on the same
 * server, in the same run, alternating: drain (limits off, and on for Semaforo), enqueue one at
 * a time and in batches. Each trial works in a fresh schema, dropped afterwards.
 */
import { alternate, atLeastRatio, makeRow, pick, withValues, type Scenario } from '../scenario.ts';
import { median, ratio } from '../stats.ts';
import { runTrial } from '../trial.ts';

export const postgres: Scenario = {
  name: 'postgres',
  title: '9. PostgreSQL',
  async run(ctx) {
    if (ctx.pgSkipped) throw new Error(ctx.pgSkipped);
    const n = ctx.quick ? 5_000 : 20_000;
    const single = ctx.quick ? 500 : 2_000;
    const batch = 1_000;
    const drains = await alternate(ctx, 'pg drain', {
      semaforo: () => runTrial('semaforo-pg.drain', { n }),
      graphile: () => runTrial('graphile.drain', { n }),
      pgboss: () => runTrial('pgboss.drain', { n }),
    });
    const limited = await alternate(ctx, 'pg drain, limits on', {
      semaforo: () => runTrial('semaforo-pg.drain', { n, limits: true }),
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
    const off = pick(drains, 'rate').semaforo ?? [];
    const on = pick(limited, 'rate').semaforo ?? [];
    const cost = ratio(median(off), median(on));
    const label = n.toLocaleString('en-US');
    return {
      name: this.name,
      title: this.title,
      setup: { tasks: n, single, batch },
      rows: [
        makeRow(
          `drain ${label} no-op tasks, one process`,
          'tasks/s',
          'higher',
          pick(drains, 'rate'),
          atLeastRatio('graphile', 1, 2),
        ),
        // The floor is for the drain with group limits on, so it is judged on that row.
        makeRow(
          `same, in a group with concurrency and rate limits`,
          'tasks/s',
          'higher',
          { semaforo: on },
          (row) => ({
            text: '>= 10,000/s',
            met:
              row.values.semaforo === null || row.values.semaforo === undefined
                ? null
                : row.values.semaforo >= 10_000,
          }),
        ),
        withValues('limits off / limits on (time)', 'x', 'lower', { semaforo: cost }, {}, (row) => ({
          text: '<= 1.5x',
          met:
            row.values.semaforo === null || row.values.semaforo === undefined
              ? null
              : row.values.semaforo <= 1.5,
        })),
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
        'One PostgreSQL 15 on this machine, shared by the client processes (2 cores in all). Drain is timed ' +
          'from the worker start until the last completion is written (graphile-worker: runner.stop(); pg-boss: a ' +
          'graceful stop; Semaforo: the done count read back). Semaforo: one engine, global limit 10,000, default ' +
          'claimBatch; "limits on" puts every task in a group with concurrency 5,000 and a rate window of ' +
          '1,000,000/s (too wide to bind, so only their checks cost). graphile-worker 0.18: concurrency 32, a local ' +
          'queue of 500, completions batched (completeJobBatchDelay 0). pg-boss 12: batchSize 100, ' +
          'localConcurrency 4, polling 0.5 s, burstWhenBatchFull. Neither peer has a global or a per-group ' +
          "concurrency limit of Semaforo's kind, nor rate windows.",
      ],
    };
  },
};
