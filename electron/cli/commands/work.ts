/** `semaforo work`: a dispatcher in the foreground, for a headless box or a terminal. */
import { Command } from 'commander';
import { ValidationError } from '../../../shared/errors.ts';
import type { Engine } from '../../core/engine.ts';
import type { CliContext } from '../context.ts';
import { loadKinds } from '../kinds.ts';
import { progressLine } from '../io.ts';
import { duration } from '../task-options.ts';

/** What is left to do: pending, waiting for a retry, or running anywhere. */
function outstanding(engine: Engine): number {
  const c = engine.stats(0).counts;
  return c.pending + c.retrying + c.running;
}

export function workCommand(ctx: CliContext): Command {
  const cmd = new Command('work')
    .description('run a dispatcher here until stopped (SIGINT/SIGTERM drain gracefully)')
    .option('-c, --concurrency <n>', 'most tasks this worker runs at once (the queue limits apply on top)')
    .option('--drain', 'exit when nothing is pending, waiting or running: 0, or 1 if a task failed meanwhile')
    .option('--grace <dur>', 'on stop, how long running tasks get to finish before they are released', '10s');
  return cmd.action(async (opts: { concurrency?: string; drain?: boolean; grace: string }) => {
    const io = ctx.ioHandle;
    let maxInFlight: number | undefined;
    if (opts.concurrency !== undefined) {
      if (!/^\d+$/.test(opts.concurrency) || Number(opts.concurrency) < 1)
        throw new ValidationError([
          { path: '--concurrency', message: `"${opts.concurrency}" is not a positive whole number` },
        ]);
      maxInFlight = Number(opts.concurrency);
    }
    const graceMs = duration('--grace', opts.grace)!;
    const { handlers, errors } = await loadKinds(ctx, cmd);
    for (const e of errors) io.err(`semaforo: warning: kind module ${e.file} not loaded: ${e.message}\n`);
    // A drain ends; schedules would keep refilling the queue, so only a standing worker fires them.
    const engine = ctx.engine(cmd, {
      userHandlers: handlers,
      workerLabel: 'work',
      maxInFlight,
      schedules: !opts.drain,
    });
    const startedAt = Date.now();
    io.err(
      `semaforo work: dispatching from ${ctx.dbPath(cmd)} (pid ${process.pid}); Ctrl-C stops gracefully\n`,
    );

    let stopRequested = false;
    let wakeWaiter = () => {};
    const offSignal = io.onSignal((signal) => {
      if (stopRequested) return;
      stopRequested = true;
      io.err(`\nsemaforo work: ${signal}: finishing running tasks (up to ${opts.grace})…\n`);
      wakeWaiter();
    });
    const progress = progressLine(io);
    try {
      engine.start();
      await new Promise<void>((resolve) => {
        const finish = () => {
          off();
          clearInterval(timer);
          resolve();
        };
        const check = () => {
          if (stopRequested) return finish();
          if (!opts.drain) return;
          const left = outstanding(engine);
          progress.update(`draining: ${left} task(s) left`);
          if (left === 0) finish();
        };
        // Changes by other processes arrive as events too; the timer covers a quiet file.
        const timer = setInterval(check, 250);
        const off = engine.onChange(check);
        wakeWaiter = check;
        check();
      });
      progress.done();
      await engine.stop(graceMs);
    } finally {
      offSignal();
    }
    if (opts.drain) {
      const failed = engine.listTasks({ status: 'failed', sort: 'finishedAt', order: 'desc', limit: 1 })
        .tasks[0];
      const failedNow = failed !== undefined && (failed.finishedAt ?? 0) >= startedAt;
      if (failedNow) {
        io.err('semaforo work: drained; some tasks failed (see `semaforo list --status failed`)\n');
        ctx.exitCode = 1;
      } else io.err('semaforo work: drained\n');
    }
  });
}
