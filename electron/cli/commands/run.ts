/**
 * `semaforo run -- CMD ARGS`: the cron-line wrapper. The command waits for the queue to let it
 * through (every limit, across every process on the file), then runs HERE with the caller's
 * terminal, its outcome is recorded in the queue, and its exit code becomes ours.
 */
import os from 'node:os';
import { Command } from 'commander';
import { FINISHED_STATUSES, type Task } from '../../../shared/domain.ts';
import { ValidationError } from '../../../shared/errors.ts';
import { parseTaskSpec } from '../../../shared/task-spec-quick.ts';
import type { Engine } from '../../core/engine.ts';
import { createShellHandler } from '../../core/handlers/shell.ts';
import { defineHandler } from '../../core/handlers/registry.ts';
import type { CliContext } from '../context.ts';
import { endNote } from '../run-end.ts';
import {
  addTaskOptions,
  namingOptions,
  TASK_OPTION_NAMES,
  taskSpecFrom,
  type TaskOptions,
  withCallerCwd,
} from '../task-options.ts';

/** Exit codes when the command did not give one, following shell conventions. */
export const RUN_EXIT = { failed: 1, timeout: 124, notFound: 127, cancelled: 130 } as const;

function signalExit(signal: NodeJS.Signals): number {
  return 128 + (os.constants.signals[signal] ?? 0);
}

export function runCommand(ctx: CliContext): Command {
  const cmd = new Command('run')
    .description("run a command under the queue's limits, here, with this terminal; exit with its code")
    .argument('<command...>', 'after --: the command and its arguments')
    .option('-q, --quiet', 'no "waiting for the queue" message');
  addTaskOptions(cmd, { kind: false }).addHelpText(
    'after',
    `
The task waits like any other (priority, group and global limits, rate budget), whether or not a
dispatcher runs elsewhere, and only this process runs it. --max-attempts defaults to 1 here.
Exit code: the command's own; ${RUN_EXIT.timeout} on --timeout, ${RUN_EXIT.notFound} if it cannot be found,
${RUN_EXIT.cancelled} if cancelled, 0 without running when --unique names a task still queued.

Example (crontab):
  */5 * * * * $HOME/.local/bin/semaforo run --group vendor --timeout 10m -- ./scrape.sh   (semaforo install-cli)`,
  );
  return cmd.action(async (command: string[], opts: TaskOptions & { quiet?: boolean }) => {
    const io = ctx.ioHandle;
    if (command.length === 0)
      throw new ValidationError([{ path: 'command', message: 'give the command to run after --' }]);
    const spec = withCallerCwd(taskSpecFrom(opts, command, 'shell')) as Record<string, unknown>;
    spec.maxAttempts ??= 1;

    let lastExit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    const shell = createShellHandler({
      inheritStdio: true,
      onExit: (code, signal) => {
        lastExit = { code, signal };
      },
    });
    const engine = await ctx.engine(cmd, {
      privateWorker: true,
      workerLabel: 'run',
      handlers: [defineHandler(shell)],
      // One task, watched by this process alone: hear of its end at once, not at the next
      // coalesced batch (200 ms by default; the bulk of a `run -- true`'s wall time).
      eventIntervalMs: 0,
    });
    const { task, created } = await namingOptions(TASK_OPTION_NAMES, async () =>
      engine.enqueue(await parseTaskSpec(spec)),
    );
    if (!created) {
      io.err(
        `semaforo run: task ${task.id} with unique key "${task.unique}" is still ${task.status}; not running again\n`,
      );
      return;
    }

    let cancelled = false;
    const offSignal = io.onSignal(() => {
      if (cancelled) return;
      cancelled = true;
      void engine.cancel([task.id]).catch((err: unknown) => io.err(`semaforo run: ${String(err)}\n`));
    });
    const waitNote = opts.quiet
      ? undefined
      : setTimeout(() => {
          void (async () => {
            const t = await engine.getTask(task.id);
            if (t.status === 'pending' || t.status === 'retrying')
              io.err(`semaforo run: ${await waitingWhy(engine, t)}\n`);
          })().catch(() => {}); // only a hint: the task ending or vanishing meanwhile is fine
        }, 1000);
    let final: Task;
    try {
      engine.start();
      final = await finished(engine, task.id);
    } finally {
      clearTimeout(waitNote);
      offSignal();
    }
    await engine.stop(0);
    const note = endNote(final, lastExit, command);
    if (note) io.err(`${note}\n`);
    ctx.exitCode = exitCodeOf(final, lastExit);
  });
}

function finished(engine: Engine, id: number): Promise<Task> {
  return new Promise((resolve, reject) => {
    const end = () => {
      off();
      clearInterval(timer);
    };
    const check = () =>
      void engine.getTask(id).then(
        (t) => {
          if (!(FINISHED_STATUSES as readonly string[]).includes(t.status)) return;
          end();
          resolve(t);
        },
        (err: unknown) => {
          end();
          reject(err);
        },
      );
    // Our own dispatcher's changes and other processes' commits (an operator cancelling or
    // deleting it: the store's watch) both come as change events; the timer is only a safety net.
    const off = engine.onChange(check);
    const timer = setInterval(check, 2000);
  });
}

/** Loaded only for this note, a second into a wait: a run with a free slot never needs it. */
async function waitingWhy(engine: Engine, t: Task): Promise<string> {
  const [{ closedGates }, { whyWaiting, waitingSentence }] = await Promise.all([
    import('../../core/machine/gate-view.ts'),
    import('../../../shared/why-waiting.ts'),
  ]);
  const stats = await engine.stats(0);
  const why = whyWaiting(t, {
    stats,
    closedGates: closedGates(stats.gates),
    now: Date.now(),
    holder: t.reservedFor ?? undefined,
  });
  return waitingSentence(why?.message ?? 'starting');
}

function exitCodeOf(
  t: Task,
  lastExit: { code: number | null; signal: NodeJS.Signals | null } | null,
): number {
  if (t.status === 'done') return 0;
  if (t.status === 'cancelled') return RUN_EXIT.cancelled;
  if (/timed out/.test(t.error ?? '')) return RUN_EXIT.timeout;
  if (lastExit !== null) {
    if (lastExit.code !== null && lastExit.code !== 0) return lastExit.code;
    if (lastExit.signal) return signalExit(lastExit.signal);
  }
  if (/command not found|cannot run/.test(t.error ?? '')) return RUN_EXIT.notFound;
  return RUN_EXIT.failed;
}
