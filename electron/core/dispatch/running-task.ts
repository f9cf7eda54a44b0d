/**
 * One task running in this dispatcher: its entry (claim, abort, output, timers), how its handler
 * is started, and how it is aborted. The dispatcher keeps the entries and writes their ends.
 */
import { BOUNDS, TailBuffer } from '../bounded.ts';
import { PermanentError, TaskTimeoutError } from '../errors.ts';
import { readPayload } from '../handlers/payload.ts';
import type { Handler, HandlerRegistry } from '../handlers/registry.ts';
import type { Logger } from '../logger.ts';
import type { ClaimedTask } from '../store/task-store.ts';
import { SUCCESS } from './finish.ts';
import { LazyAbort } from './lazy-abort.ts';
import type { MonotonicClock } from '../clock.ts';
import { PausableTimeout } from './pausable-timeout.ts';
import { continueTask } from './pause-running.ts';
import { TaskContext } from './task-context.ts';

export class LeaseLostError extends Error {
  constructor() {
    super('lease lost: another worker owns this task now');
    this.name = 'LeaseLostError';
  }
}

export class ShutdownError extends Error {
  constructor() {
    super('worker is shutting down');
    this.name = 'ShutdownError';
  }
}

export interface Running {
  claim: ClaimedTask;
  abort: LazyAbort;
  output: TailBuffer;
  timers: ReturnType<typeof setTimeout>[];
  settled: boolean;
  /** the longest hold of its group the handler asked for (ms from its end) */
  groupHoldMs?: number;
  /** resolves when the handler itself returned or threw */
  handlerDone: Promise<void>;
  /** its timeout, suspended while a gate pauses it */
  timeout: PausableTimeout | null;
  /** the process group a shell task's command leads, while it runs (pause-running.ts) */
  pgid: number | null;
  /** when a gate paused it (monotonic ms); null: not paused */
  pausedAt: number | null;
  /** ms spent paused in earlier pauses */
  pausedMs: number;
}

export interface RunParts {
  registry: HandlerRegistry;
  workerId: string;
  /** the handler returned (err SUCCESS, with its result) or threw / could not start (err) */
  settle: (entry: Running, err: unknown, result?: unknown) => void;
  /** abort the task `id` (its timeout came) */
  abort: (id: number, reason: Error) => void;
  progress: (id: number, fraction: number) => void;
  /** the handler wrote to the output of `entry` */
  output: (entry: Running) => void;
  monotonic: MonotonicClock;
}

export function newRunning(claim: ClaimedTask): Running {
  return {
    claim,
    abort: new LazyAbort(),
    output: new TailBuffer(BOUNDS.outputChars),
    timers: [],
    settled: false,
    handlerDone: Promise.resolve(),
    timeout: null,
    pgid: null,
    pausedAt: null,
    pausedMs: 0,
  };
}

/** Starts the handler of `entry`'s task (or settles it at once when it cannot start). */
export function startHandler(entry: Running, p: RunParts): void {
  const { task } = entry.claim;
  const handler = p.registry.get(task.kind);
  if (!handler) {
    p.settle(entry, new PermanentError(`no handler for kind "${task.kind}" in worker ${p.workerId}`));
    return;
  }
  const timeout = task.timeout ?? handler.defaultTimeoutMs;
  if (timeout !== undefined && timeout !== null) {
    entry.timeout = new PausableTimeout(
      timeout,
      () => p.abort(task.id, new TaskTimeoutError(timeout)),
      p.monotonic,
    );
  }
  const invalid = (err: unknown) =>
    p.settle(entry, new PermanentError(`payload no longer valid for kind "${task.kind}": ${String(err)}`));
  let payload: unknown;
  try {
    payload = readPayload(handler.payload, task.payload);
  } catch (err) {
    invalid(err);
    return;
  }
  const ctx = new TaskContext(
    task,
    entry.abort,
    (text: string) => {
      entry.output.push(text);
      if (!entry.settled) p.output(entry);
    },
    (fraction: number) => p.progress(task.id, fraction),
    p.workerId,
    (ms: number) => {
      if (Number.isFinite(ms) && ms > 0) entry.groupHoldMs = Math.max(entry.groupHoldMs ?? 0, ms);
    },
    (pid: number | null) => {
      // Ended while paused (killed from outside): its pause ends with it.
      if (pid === null) continueTask(entry, p.monotonic.now());
      entry.pgid = pid;
    },
  );
  // A promise only the first time a kind's lazy schema is needed (handlers/payload.ts).
  entry.handlerDone =
    payload instanceof Promise
      ? payload.then(
          (parsed: unknown) => (entry.settled ? undefined : runHandler(entry, p, handler, parsed, ctx)),
          (err: unknown) => invalid(err),
        )
      : runHandler(entry, p, handler, payload, ctx);
}

function runHandler(entry: Running, p: RunParts, handler: Handler, payload: unknown, ctx: TaskContext) {
  return Promise.resolve()
    .then(() => handler.run(payload, ctx))
    .then(
      (result) => p.settle(entry, SUCCESS, result),
      (err: unknown) => p.settle(entry, err),
    );
}

/** Clears the timers of a task that ended or is no longer ours. */
export function clearTimers(entry: Running): void {
  for (const t of entry.timers) clearTimeout(t);
  entry.timeout?.clear();
}

/**
 * Aborts a running handler (continuing it first if a gate paused it, so it can act on its
 * SIGTERM); warns once if it has not returned after `graceMs`.
 */
export function abortRunning(
  entry: Running,
  reason: Error,
  graceMs: number,
  logger: Logger,
  now: number,
): void {
  if (entry.settled || entry.abort.aborted) return;
  continueTask(entry, now);
  entry.abort.abort(reason);
  // A handler that ignores its signal still runs: its task stays running (leased, renewed,
  // counted against every limit) until it returns, so nothing else takes its slot meanwhile.
  const grace = setTimeout(() => {
    logger.warn(
      `task ${entry.claim.task.id}'s handler ignored its abort (${reason.message}) for ${graceMs} ms: ` +
        'its slot stays taken until it returns (JavaScript cannot be stopped from outside; ' +
        'restarting the worker ends it)',
    );
  }, graceMs);
  grace.unref();
  entry.timers.push(grace);
}
