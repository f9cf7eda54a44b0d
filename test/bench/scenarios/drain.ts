/**
 * 2. Drain N pre-inserted no-op tasks with the global limit set high enough not to bind, then
 * fewer at small global limits, where each tick finishes and claims only a few (tasks/s).
 */
import { plainjobFile, semaforoFile } from '../fixtures.ts';
import { BULLMQ_CONCURRENCY } from '../peers/common.ts';
import { alternate, atLeastRatio, makeRow, pick, type Row, type Scenario, type Trials } from '../scenario.ts';
import { benchDir, removeDir, withCopy } from '../tmp.ts';
import { runTrial } from '../trial.ts';

/** The global limits of the small-batch rows (3 is the queue's default). */
const LIMITS = [1, 3, 16, 64];
export const drain: Scenario = {
  name: 'drain',
  title: '2. Drain',
  async run(ctx) {
    const n = ctx.quick ? 5000 : 50_000;
    const dir = benchDir();
    try {
      ctx.log(`drain: preparing ${n} tasks for each system`);
      const sem = await semaforoFile(dir, 'semaforo.db', { ready: n, globalConcurrency: 10_000 });
      const pj = plainjobFile(dir, 'plainjob.db', { ready: n });
      const trials: Trials = {
        semaforo: () => withCopy(sem, (file) => runTrial('semaforo.drain', { file, n })),
        plainjob: () => withCopy(pj, (file) => runTrial('plainjob.drain', { file, n })),
      };
      const port = ctx.redisPort;
      if (port !== null) trials.bullmq = () => runTrial('bullmq.drain', { n, port });
      const results = await alternate(ctx, 'drain', trials);
      // The same drain with plainjob's durability setting: how much of the time is the fsync of results.
      const normal = await alternate(ctx, 'drain (Semaforo, synchronous=NORMAL)', {
        semaforo: () =>
          withCopy(sem, (file) => runTrial('semaforo.drain', { file, n, durability: 'normal' })),
      });
      const small = ctx.quick ? 1000 : 5000;
      const pjSmall = plainjobFile(dir, 'plainjob-small.db', { ready: small });
      const limited: Row[] = [];
      for (const limit of LIMITS) {
        const semL = await semaforoFile(dir, `semaforo-${limit}.db`, {
          ready: small,
          globalConcurrency: limit,
        });
        const r = await alternate(ctx, `drain at global limit ${limit}`, {
          semaforo: () => withCopy(semL, (file) => runTrial('semaforo.drain', { file, n: small })),
          plainjob: () => withCopy(pjSmall, (file) => runTrial('plainjob.drain', { file, n: small })),
        });
        limited.push(
          makeRow(
            `drain ${small.toLocaleString('en-US')} at global limit ${limit}${limit === 3 ? ' (default)' : ''}`,
            'tasks/s',
            'higher',
            pick(r, 'rate'),
            atLeastRatio('plainjob', 1),
          ),
        );
        if (limit > 3) continue;
        // The opt-in group commit, where it matters most: the smallest limits.
        const gc = await alternate(ctx, `drain at global limit ${limit}, group commit`, {
          semaforo: () =>
            withCopy(semL, (file) => runTrial('semaforo.drain', { file, n: small, groupCommit: true })),
        });
        limited.push(
          makeRow(`same, with the opt-in group commit (info)`, 'tasks/s', 'higher', {
            ...pick(gc, 'rate'),
            plainjob: pick(r, 'rate').plainjob ?? [],
          }),
        );
      }
      const label = n.toLocaleString('en-US');
      return {
        name: this.name,
        title: this.title,
        setup: { tasks: n, globalConcurrency: 10_000, bullmqConcurrency: BULLMQ_CONCURRENCY },
        rows: [
          makeRow(
            `drain ${label} no-op tasks`,
            'tasks/s',
            'higher',
            pick(results, 'rate'),
            atLeastRatio('plainjob', 2, 4),
          ),
          makeRow(`same, Semaforo at synchronous=NORMAL (info)`, 'tasks/s', 'higher', {
            ...pick(normal, 'rate'),
            plainjob: pick(results, 'rate').plainjob ?? [],
          }),
          ...limited,
        ],
        checks: [],
        notes: [
          'Timed from engine.start() / worker.start() / worker.run() until the last task is done; ' +
            'the tasks were enqueued beforehand (not timed). Semaforo: one process, default ' +
            'claimBatch 128, default durability: results are on disk before they are reported ' +
            '(claim-only commits are not synced). plainjob: one worker, as in its own bench. ' +
            `BullMQ: one Worker, concurrency ${BULLMQ_CONCURRENCY}. ` +
            'At a global limit, Semaforo finishes and claims at most that many per tick, each tick with ' +
            'results waiting for its own fsync (no-op tasks all return in the turn they start, so each ' +
            'commit carries the whole limit); with the opt-in group commit (engine option ' +
            'groupCommit) results are told once a later sync of the -wal file is done, one sync shared ' +
            'by every tick committed while the previous one ran. plainjob has no global limit: ' +
            'the same plainjob drain, of as many tasks, in the same rounds.',
        ],
      };
    } finally {
      removeDir(dir);
    }
  },
};
