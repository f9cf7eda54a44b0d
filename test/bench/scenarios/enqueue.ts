/** 1. Enqueue: one task per call, and batches, into a fresh queue (tasks/s). */
import { runTrial } from '../trial.ts';
import { alternate, atLeastRatio, makeRow, pick, type Scenario, type Trials } from '../scenario.ts';

export const enqueue: Scenario = {
  name: 'enqueue',
  title: '1. Enqueue',
  async run(ctx) {
    const single = ctx.quick ? 500 : 3000;
    // The same calls once the JIT has compiled both sides: 3,000 calls from a fresh process take
    // ~60 ms, most of it before the hot path is optimised (a script or cron job enqueuing a few
    // tasks lives there; a long-running producer lives here).
    const warm = { n: ctx.quick ? 5000 : 30_000, warmup: ctx.quick ? 1000 : 3000 };
    const batched = ctx.quick ? 5000 : 50_000;
    const batch = ctx.quick ? 500 : 1000;
    const port = ctx.redisPort;

    const one: Trials = {
      semaforo: () => runTrial('semaforo.enqueueSingle', { n: single }),
      plainjob: () => runTrial('plainjob.enqueueSingle', { n: single }),
    };
    const oneWarm: Trials = {
      semaforo: () => runTrial('semaforo.enqueueSingle', warm),
      plainjob: () => runTrial('plainjob.enqueueSingle', warm),
    };
    const many: Trials = {
      semaforo: () => runTrial('semaforo.enqueueBatch', { n: batched, batch }),
      plainjob: () => runTrial('plainjob.enqueueBatch', { n: batched, batch }),
    };
    if (port !== null) {
      one.bullmq = () => runTrial('bullmq.enqueueSingle', { n: single, port });
      many.bullmq = () => runTrial('bullmq.enqueueBatch', { n: batched, batch, port });
    }
    const r1 = await alternate(ctx, 'enqueue one at a time', one);
    const r1Warm = await alternate(ctx, 'enqueue one at a time, warm', oneWarm);
    const r2 = await alternate(ctx, 'enqueue batches', many);
    return {
      name: this.name,
      title: this.title,
      setup: { single, warm, batched, batch },
      rows: [
        makeRow(
          `one at a time (${single.toLocaleString('en-US')} calls)`,
          'tasks/s',
          'higher',
          pick(r1, 'rate'),
          atLeastRatio('plainjob', 1.5),
        ),
        makeRow(
          `one at a time, warm (${warm.n.toLocaleString('en-US')} calls after ${warm.warmup.toLocaleString('en-US')}) (info)`,
          'tasks/s',
          'higher',
          pick(r1Warm, 'rate'),
        ),
        makeRow(
          `batches of ${batch.toLocaleString('en-US')} (${batched.toLocaleString('en-US')} tasks)`,
          'tasks/s',
          'higher',
          pick(r2, 'rate'),
          atLeastRatio('plainjob', 1.2),
        ),
        makeRow(`one at a time, until moved into tasks (info)`, 'tasks/s', 'higher', {
          semaforo: pick({ semaforo: r1.semaforo }, 'withMove').semaforo ?? [],
          plainjob: pick(r1, 'rate').plainjob ?? [],
        }),
        makeRow(`batches, until moved into tasks (info)`, 'tasks/s', 'higher', {
          semaforo: pick({ semaforo: r2.semaforo }, 'withMove').semaforo ?? [],
          plainjob: pick(r2, 'rate').plainjob ?? [],
        }),
      ],
      checks: [],
      notes: [
        'Semaforo: engine.enqueue / engine.enqueueMany (validated; default durability "results": ' +
          "an enqueue commit is not fsynced, like plainjob's, and survives any process crash). " +
          'plainjob: queue.add / queue.addMany (synchronous=NORMAL, its own setting). ' +
          'BullMQ: await queue.add / queue.addBulk, Redis without persistence. ' +
          'An enqueue appends one row to the inbox; the next write transaction of any process ' +
          "(a worker's claim, an operator action, a read) moves it into the tasks table. The " +
          '"until moved" rows add the time of that move, made here by one read after the last enqueue.',
      ],
    };
  },
};
