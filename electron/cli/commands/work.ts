/** `semaforo work`: a dispatcher in the foreground, for a headless box or a terminal. */
import os from 'node:os';
import { Command } from 'commander';
import { ValidationError } from '../../../shared/errors.ts';
import type { Engine, EngineOptions } from '../../core/engine.ts';
import { StorageError } from '../../core/errors.ts';
import type { CliContext } from '../context.ts';
import { loadKinds } from '../kinds.ts';
import { progressLine } from '../io.ts';
import { duration } from '../task-options.ts';
import { drainWaitsFor, liveLine, taskLog, unknownKindsWaiting } from '../work-report.ts';

/**
 * What is left to do: pending, waiting for a retry, or running anywhere. Null when the file
 * cannot be read just now (the dispatcher says why and retries).
 */
async function outstanding(engine: Engine): Promise<number | null> {
  try {
    const c = (await engine.stats(0)).counts;
    return c.pending + c.retrying + c.running;
  } catch {
    return null;
  }
}

/**
 * The engine, once this process can write the queue; null if stopped while waiting. A worker
 * started while the disk is full or the file is read-only waits, saying so once per cause,
 * instead of exiting: under a supervisor that restarts it, exiting is a crash loop, and a
 * connection opened read-only would stay read-only for good, so each try opens afresh.
 */
async function openWhenWritable(
  ctx: CliContext,
  cmd: Command,
  options: Partial<EngineOptions>,
  pause: () => Promise<boolean>,
): Promise<Engine | null> {
  let said = '';
  const verbose = ctx.globals(cmd).verbose === true;
  for (let attempt = 1; ; attempt++) {
    let engine: Engine | null = null;
    try {
      engine = await ctx.engine(cmd, options);
      engine.checkWritable();
      if (said) ctx.ioHandle.err(`semaforo work: ${ctx.dbPath(cmd)} can be written now; dispatching\n`);
      return engine;
    } catch (err) {
      // Waiting cannot mend a damaged file.
      if (!(err instanceof StorageError) || err.condition === 'damaged') throw err;
      if (engine) await ctx.discard(engine);
      if (err.message !== said) {
        ctx.ioHandle.err(
          `semaforo work: ${err.message}; waiting until it can be written (checking every second, Ctrl-C stops)\n`,
        );
        said = err.message;
      } else if (verbose)
        ctx.ioHandle.err(`semaforo: attempt ${attempt} to open for writing failed: ${err.message}\n`);
      if (!(await pause())) return null;
    }
  }
}

export function workCommand(ctx: CliContext): Command {
  const cmd = new Command('work')
    .description('run a dispatcher here until stopped (SIGINT/SIGTERM drain gracefully)')
    .option('-c, --concurrency <n>', 'most tasks this worker runs at once (the queue limits apply on top)')
    .option(
      '--drain',
      'exit when nothing is pending, waiting or running: 0, or 1 if a task failed meanwhile or tasks of a kind this worker lacks are left (130/143 when Ctrl-C/SIGTERM stops it first)',
    )
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
    const { handlers, errors, dir } = await loadKinds(ctx, cmd);
    for (const e of errors) io.err(`semaforo: warning: kind module ${e.file} not loaded: ${e.message}\n`);
    const startedAt = Date.now();
    let stopRequested: NodeJS.Signals | null = null;
    /** a drain that ended with only tasks it has no handler for left: why */
    let unrunnable: string | null = null;
    let fileLost = false;
    let wakeWaiter = () => {};
    // Installed before saying it is ready: a SIGTERM right after that line must stop it gracefully.
    const offSignal = io.onSignal((signal) => {
      if (stopRequested) return;
      stopRequested = signal;
      io.err(`\nsemaforo work: ${signal}: finishing running tasks (up to ${opts.grace})…\n`);
      wakeWaiter();
    });
    const offExit =
      io.onExit?.(() => {
        // Only a handler's process.exit() ends the process before the action returns.
        io.err(
          'semaforo work: the process was ended (process.exit) while dispatching, by a handler?; ' +
            'its running tasks go back to the queue as lost attempts\n',
        );
        return 1;
      }) ?? (() => {});
    const progress = progressLine(io);
    let engine: Engine | null;
    try {
      /** Waits a second (or until a stop signal); false when the worker should stop. */
      const pause = () =>
        new Promise<boolean>((resolve) => {
          const t = setTimeout(() => resolve(stopRequested === null), 1000);
          wakeWaiter = () => {
            clearTimeout(t);
            resolve(false);
          };
        });
      // A drain ends; schedules would keep refilling the queue, so only a standing worker fires them.
      engine = await openWhenWritable(
        ctx,
        cmd,
        { userHandlers: handlers, workerLabel: 'work', maxInFlight, schedules: !opts.drain },
        pause,
      );
      if (!engine) return;
      // Said once the file is open and trusted: a refused file gets only its one error line.
      io.err(
        `semaforo work: dispatching from ${ctx.dbPath(cmd)} (pid ${process.pid}); Ctrl-C stops gracefully\n`,
      );
      const running = engine;
      // The engine has said why (one error line) and stopped claiming; this process ends with 1.
      running.onFault(() => {
        fileLost = true;
        wakeWaiter();
      });
      const kinds = running.registry.kinds();
      const lacking = async () => {
        const u = await unknownKindsWaiting(running, kinds);
        return u.count === 0
          ? null
          : `${u.count} task(s) of kind ${u.kinds.join(', ')} wait for a worker that has it ` +
              `(this one loads your kinds from ${dir}; give --handlers DIR)`;
      };
      const lackingAtStart = await lacking();
      if (lackingAtStart) io.err(`semaforo work: ${lackingAtStart}\n`);
      const counts0 = (await running.stats(0)).counts;
      const offLog = ctx.globals(cmd).verbose
        ? running.onChange(
            (
              (log) => (b) =>
                log(b.taskIds)
            )(taskLog(running, (l) => io.err(`semaforo work: ${l}\n`))),
          )
        : () => {};
      await running.registry.loadPayloadSchemas();
      running.start();
      await new Promise<void>((resolve) => {
        let ticks = 0;
        let said: number | null = null;
        const finish = () => {
          if (finished) return;
          finished = true;
          off();
          offLog();
          clearInterval(timer);
          resolve();
        };
        let finished = false;
        const checkNow = async (timed: boolean) => {
          if (timed && io.interactive)
            progress.update(
              `${opts.drain ? 'draining: ' : ''}${await liveLine(running, counts0, Date.now())}`,
            );
          if (!opts.drain) return;
          const left = await outstanding(running);
          if (left === null) return;
          if (left === 0) return finish();
          if (!timed || ticks++ % 4 !== 0) return; // about once a second: a few counts
          const waits = await drainWaitsFor(running, Date.now());
          if (waits !== null && waits.id !== said) {
            progress.done();
            io.err(`semaforo work: ${waits.text}\n`);
          }
          said = waits?.id ?? null;
          if ((await running.stats(0)).counts.running > 0) return;
          const u = await unknownKindsWaiting(running, kinds);
          if (u.count > 0 && u.count === left) {
            unrunnable = await lacking();
            finish();
          }
        };
        const check = (timed = false) => {
          if (finished) return;
          if (stopRequested || fileLost) return finish();
          // A read that fails (busy, disk full) is said by the dispatcher; the next check retries.
          checkNow(timed).catch(() => {});
        };
        // Changes by other processes arrive as events too; the timer covers a quiet file.
        const timer = setInterval(() => check(true), 250);
        const off = running.onChange(() => check());
        wakeWaiter = check;
        check(true);
      });
      progress.done();
      await running.stop(graceMs);
    } finally {
      offSignal();
      offExit();
    }
    if (fileLost) {
      ctx.exitCode = 1;
      return;
    }
    if (!opts.drain) return;
    const left = stopRequested === null ? 0 : await outstanding(engine);
    if (stopRequested !== null && left !== 0) {
      // A stopped drain did not drain: a script's `work --drain && next` must not go on as if it had.
      io.err(
        `semaforo work: stopped by ${stopRequested} before the queue was drained` +
          `${left === null ? '' : `: ${left} task(s) left`}; they stay queued\n`,
      );
      ctx.exitCode = 128 + os.constants.signals[stopRequested];
      return;
    }
    if (unrunnable !== null) {
      io.err(`semaforo work: drained what this worker can run; ${unrunnable}\n`);
      ctx.exitCode = 1;
      return;
    }
    const failed = (
      await engine.listTasks({ status: ['failed'], sort: 'finishedAt', order: 'desc', limit: 1 })
    ).tasks[0];
    const failedNow = failed !== undefined && (failed.finishedAt ?? 0) >= startedAt;
    if (failedNow) {
      io.err('semaforo work: drained; some tasks failed (see `semaforo list --status failed`)\n');
      ctx.exitCode = 1;
    } else io.err('semaforo work: drained\n');
  });
}
