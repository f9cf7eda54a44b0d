/**
 * The dispatcher: one per process that runs tasks. It never polls per task. It runs a "tick"
 * (one write transaction: write the finished attempts, claim what the limits allow) whenever
 * something may have changed: a task finished or was enqueued here (woken at once), another
 * process committed (noticed by polling `PRAGMA data_version`, which costs no disk read), or a
 * delayed task / rate window / Retry-After block comes due (a timer set to that time).
 *
 * Finishes that land in the same event-loop turn share one transaction, and a task is reported
 * done (events, faces) only after that transaction committed.
 *
 * Time: the wall clock is the file's shared timeline (run_at, leases), and it can step. Waits this
 * process measures itself use the monotonic clock: Node's timers (renewal, timeouts, grace) are
 * monotonic already; a backoff it set is held for its full duration (DelayHolds), and another
 * owner's lease is judged by how long this process has watched it go unrenewed (LeaseWatch).
 */
import { BOUNDS, TailBuffer, boundResult, truncateHead } from '../bounded.ts';
import { systemMonotonic, type Clock, type MonotonicClock } from '../clock.ts';
import { PermanentError, RetryAfterError, TaskCancelledError, TaskTimeoutError } from '../errors.ts';
import type { HandlerRegistry } from '../handlers/registry.ts';
import type { Logger } from '../logger.ts';
import { DEFAULT_BACKOFF, type BackoffPolicy } from '../policy/backoff.ts';
import { decideAfterFailure, type Failure } from '../policy/outcome.ts';
import type { ClaimedTask, Finish, LeaseHolder, TaskStore, WorkerIdentity } from '../store/task-store.ts';
import type { Task } from '../../../shared/domain.ts';
import { DelayHolds } from './delay-holds.ts';
import { LeaseWatch } from './lease-watch.ts';
import { WriteFailures } from './write-failures.ts';
import { LazyAbort } from './lazy-abort.ts';
import { TaskContext } from './task-context.ts';
import { OrphanReaper } from './orphan-reaper.ts';
import { findTagged, stopTagged } from '../handlers/attempt-tag.ts';
import { isOwnerProcessRunning } from '../worker-identity.ts';

export interface DispatcherOptions {
  store: TaskStore;
  registry: HandlerRegistry;
  /** the wall clock */
  clock: Clock;
  /** measures this process's own waits (default `performance.now()`) */
  monotonic?: MonotonicClock;
  worker: WorkerIdentity;
  logger: Logger;
  /** called after each commit with the ids whose state changed */
  onChange: (ids: number[]) => void;
  /** called when another process changed the file */
  onExternalChange: () => void;
  /** is this lease owner a process on this machine that is gone? */
  isOwnerDead: (owner: { id: string; pid: number | null; host: string | null }) => boolean;
  /** whether a lease owner's process still runs on this machine (default: by its pid) */
  isOwnerRunning?: (owner: LeaseHolder) => boolean;
  leaseMs?: number;
  pollIntervalMs?: number;
  reapIntervalMs?: number;
  /** most tasks this process runs at once (the global and group limits apply on top) */
  maxInFlight?: number;
  /**
   * Most tasks claimed in one transaction (default 128). Each commit of a tick that writes results
   * waits for one fsync, so a bigger batch shares it among more tasks: a no-op drain ran 40k/s at
   * 64 and 47k/s at 128 (test/bench); the write lock is then held ~2-3 ms per tick, well inside
   * what the other processes and the main thread's frames tolerate.
   */
  claimBatch?: number;
  /**
   * How long an aborted handler may take to stop before it is reported as ignoring its signal.
   * Its slot stays taken until it returns: JavaScript cannot be stopped from outside.
   */
  abortGraceMs?: number;
  backoff?: BackoffPolicy;
  random?: () => number;
  /** claim only tasks reserved for this worker (a `semaforo run`) */
  reservedOnly?: boolean;
  /** the longest a backoff is held against a forward wall-clock step (default: the backoff cap) */
  maxHoldMs?: number;
  /** one line for a failed store call, naming the file and the condition (default `String(err)`) */
  describeError?: (err: unknown) => string;
}

class LeaseLostError extends Error {
  constructor() {
    super('lease lost: another worker owns this task now');
    this.name = 'LeaseLostError';
  }
}

class ShutdownError extends Error {
  constructor() {
    super('worker is shutting down');
    this.name = 'ShutdownError';
  }
}

interface Running {
  claim: ClaimedTask;
  abort: LazyAbort;
  output: TailBuffer;
  timers: ReturnType<typeof setTimeout>[];
  settled: boolean;
  /** resolves when the handler itself returned or threw */
  handlerDone: Promise<void>;
}

export class Dispatcher {
  private readonly o: Required<
    Omit<
      DispatcherOptions,
      'backoff' | 'random' | 'monotonic' | 'maxHoldMs' | 'describeError' | 'isOwnerRunning'
    >
  > & {
    backoff: BackoffPolicy;
    random: () => number;
  };
  private readonly holds: DelayHolds;
  private readonly leases: LeaseWatch;
  private readonly writeFailures: WriteFailures;
  private readonly describeError: (err: unknown) => string;
  private readonly orphans: OrphanReaper;
  /** claims are held back behind a delay (said once per episode) */
  private holding = false;
  private readonly running = new Map<number, Running>();
  private finishes: Finish[] = [];
  private tickScheduled = false;
  private wakeTimer: ReturnType<typeof setTimeout> | null = null;
  private intervals: ReturnType<typeof setInterval>[] = [];
  private lastDataVersion = 0;
  private state: 'idle' | 'running' | 'stopping' | 'stopped' = 'idle';
  private progress = new Map<number, number>();
  private progressTimer: ReturnType<typeof setTimeout> | null = null;
  private idleWaiters: (() => void)[] = [];

  constructor(options: DispatcherOptions) {
    const leaseMs = options.leaseMs ?? 30_000;
    this.o = {
      ...options,
      leaseMs,
      pollIntervalMs: options.pollIntervalMs ?? 20,
      reapIntervalMs: options.reapIntervalMs ?? 2000,
      maxInFlight: options.maxInFlight ?? Number.POSITIVE_INFINITY,
      claimBatch: options.claimBatch ?? 128,
      abortGraceMs: options.abortGraceMs ?? 5000,
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      random: options.random ?? Math.random,
      reservedOnly: options.reservedOnly ?? false,
    };
    const mono = options.monotonic ?? systemMonotonic;
    this.holds = new DelayHolds(mono, options.maxHoldMs ?? this.o.backoff.capMs);
    this.leases = new LeaseWatch(leaseMs, options.clock, mono);
    this.writeFailures = new WriteFailures(options.logger, mono);
    this.describeError = options.describeError ?? ((err) => String(err));
    this.orphans = new OrphanReaper({
      host: options.worker.host,
      logger: options.logger,
      graceMs: 2000,
      stillRuns: options.isOwnerRunning ?? isOwnerProcessRunning,
      find: findTagged,
      stop: stopTagged,
      onStopped: () => {
        try {
          if (this.state === 'running') this.reap();
        } catch (err) {
          this.writeFailures.failed(this.describeError(err), this.finishes.length);
        }
      },
    });
    for (const [name, v] of Object.entries({
      leaseMs,
      claimBatch: this.o.claimBatch,
      maxInFlight: this.o.maxInFlight,
    })) {
      if (!(v >= 1)) throw new RangeError(`${name} must be a number >= 1`);
    }
  }

  get inFlight(): number {
    return this.running.size;
  }

  runningIds(): number[] {
    return [...this.running.keys()];
  }

  start(): void {
    if (this.state !== 'idle') return;
    this.state = 'running';
    this.lastDataVersion = this.o.store.dataVersion();
    this.every(this.o.pollIntervalMs, () => this.poll());
    this.every(Math.max(50, Math.floor(this.o.leaseMs / 3)), () => this.renew());
    this.every(this.o.reapIntervalMs, () => this.reap());
    this.reap();
    this.wake();
  }

  /** Run a tick soon (coalesced: many wakes in one turn make one transaction). */
  wake(): void {
    if (this.tickScheduled || this.state === 'stopped' || this.state === 'idle') return;
    this.tickScheduled = true;
    setImmediate(() => this.tick());
  }

  /** The user cancelled these tasks; abort the ones running here now rather than at the next poll. */
  abortCancelled(ids: readonly number[]): void {
    for (const id of ids) this.abort(id, new TaskCancelledError());
  }

  /** Resolves when nothing runs here and no finish awaits its commit. */
  whenIdle(): Promise<void> {
    if (this.running.size === 0 && this.finishes.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Graceful stop: claim nothing more, let running tasks finish until `deadlineMs`, then abort
   * the rest and give their leases back (not counted as attempts) so another worker takes them.
   */
  async stop(deadlineMs = 10_000): Promise<void> {
    if (this.state === 'stopped') return;
    if (this.state === 'idle') {
      this.state = 'stopped';
      return;
    }
    this.state = 'stopping';
    const deadline = new Promise<'deadline'>((r) => {
      // Node fires a timer longer than 2^31-1 ms (~24.8 days) after 1 ms: `work --grace 30d`
      // released every running task at once. Clamped as in wakeIn.
      const t = setTimeout(() => r('deadline'), Math.min(deadlineMs, 2 ** 31 - 1));
      t.unref();
    });
    if ((await Promise.race([this.whenIdle().then(() => 'idle' as const), deadline])) === 'deadline') {
      const left = [...this.running.values()];
      for (const r of left) r.abort.abort(new ShutdownError());
      await Promise.race([
        Promise.all(left.map((r) => r.handlerDone)),
        new Promise((r) => setTimeout(r, Math.min(this.o.abortGraceMs, 1000)).unref()),
      ]);
      const ids = left.map((r) => r.claim.task.id);
      for (const r of left) this.dropRunning(r);
      try {
        const released = this.o.store.releaseLeases(this.o.worker, ids, this.dueNow());
        if (released.length) this.o.onChange(released);
      } catch (err) {
        this.o.logger.error(`could not release leases (they will expire): ${this.describeError(err)}`);
      }
    }
    // Write whatever finished meanwhile.
    if (this.finishes.length) this.tick();
    this.flushProgress();
    this.state = 'stopped';
    for (const t of this.intervals) clearInterval(t);
    this.intervals = [];
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    if (this.progressTimer) clearTimeout(this.progressTimer);
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(() => {
      try {
        fn();
      } catch (err) {
        // Renewals and reaps fail for the same reasons as ticks (disk full, read-only): one episode.
        this.writeFailures.failed(this.describeError(err), this.finishes.length);
      }
    }, ms);
    t.unref();
    this.intervals.push(t);
  }

  private poll(): void {
    const v = this.o.store.dataVersion();
    if (v === this.lastDataVersion) return;
    this.lastDataVersion = v;
    this.o.onExternalChange();
    // Another process may have cancelled one of ours, or taken one of ours after a stall.
    if (this.running.size > 0) this.renew();
    this.wake();
  }

  private renew(): void {
    if (this.running.size === 0) return;
    const ids = [...this.running.values()].filter((r) => !r.settled).map((r) => r.claim.task.id);
    if (ids.length === 0) return;
    const { lost, cancelRequested } = this.o.store.renewLeases(
      this.o.worker,
      ids,
      this.o.clock.now(),
      this.o.leaseMs,
    );
    this.writeFailures.succeeded();
    for (const id of lost) this.abort(id, new LeaseLostError());
    for (const id of cancelRequested) this.abort(id, new TaskCancelledError());
  }

  /** The time this dispatcher claims and stamps with: the wall clock, held back by DelayHolds. */
  private dueNow(): number {
    const wall = this.o.clock.now();
    const now = this.holds.dueNow(wall);
    // A few ms of hold are clock-rate noise; a second or more is a step.
    const holding = wall - now >= 1000;
    if (holding && !this.holding) {
      this.o.logger.warn(
        `the wall clock is ${wall - now} ms past a retry this worker delayed (did the clock step ` +
          'forward?); later tasks wait until that delay has really passed',
      );
    }
    this.holding = holding;
    return now;
  }

  private reap(): void {
    const step = this.o.store.rebaseAfterClockStep(this.o.clock.now());
    if (step !== null) {
      this.o.logger.warn(`the wall clock stepped back ${step} ms: the queue's waits were moved back with it`);
      this.wake();
    }
    this.leases.beginRound();
    const reclaimed = this.o.store.reclaimLost(this.dueNow(), (owner) => this.isLost(owner));
    this.leases.endRound();
    if (reclaimed.length > 0) {
      this.o.logger.warn(
        `returned ${reclaimed.length} task(s) whose worker stopped renewing: ${reclaimed.join(', ')}`,
      );
      this.o.onChange(reclaimed);
      this.wake();
    }
  }

  /** Another owner's tasks go back to the queue when its process is gone or its lease stalled. */
  private isLost(owner: LeaseHolder): boolean {
    if (owner.id === this.o.worker.id) return false;
    const dead = this.o.isOwnerDead(owner);
    const lease = owner.leaseExpiresAt;
    const stalled = !dead && typeof lease === 'number' && this.leases.stalled(owner.id, lease);
    return this.orphans.mayReclaim(owner, dead, stalled);
  }

  private tick(): void {
    this.tickScheduled = false;
    if (this.state === 'stopped') return;
    const finishes = this.finishes;
    this.finishes = [];
    // Slots whose finish this transaction writes are free for its claims. Counted as taken, a
    // worker at its maxInFlight whose tasks all settled before one tick (same-turn timers, or
    // finishes held back while the disk was full) claimed nothing and was never woken again.
    const settling = finishes.filter((f) => this.running.get(f.taskId)?.settled === true).length;
    const claimMax =
      this.state === 'running'
        ? Math.min(this.o.claimBatch, this.o.maxInFlight - (this.running.size - settling))
        : 0;
    if (finishes.length === 0 && claimMax <= 0) return;
    let out;
    try {
      out = this.o.store.tick({
        now: () => this.dueNow(),
        worker: this.o.worker,
        leaseMs: this.o.leaseMs,
        finishes,
        claimMax,
        reservedOnly: this.o.reservedOnly,
      });
    } catch (err) {
      // Busy, disk full, read-only: keep the finishes and try again shortly, without a hot loop.
      this.finishes = finishes.concat(this.finishes);
      this.writeFailures.failed(this.describeError(err), this.finishes.length);
      this.wakeIn(1000);
      return;
    }
    // A tick that wrote nothing proves nothing (it commits even on a full disk).
    if (finishes.length > 0 || out.claimed.length > 0) this.writeFailures.succeeded();
    const changed: number[] = [];
    if (out.applied.length < finishes.length) {
      // A reschedule that was not written (the lease was lost) is not ours to hold.
      const applied = new Set(out.applied);
      for (const f of finishes) if (!applied.has(f)) this.holds.remove(f.taskId);
    }
    for (const f of finishes) {
      const r = this.running.get(f.taskId);
      if (r && r.settled) this.running.delete(f.taskId);
      changed.push(f.taskId);
    }
    for (const c of out.claimed) {
      changed.push(c.task.id);
      this.startTask(c);
    }
    if (changed.length) this.o.onChange(changed);
    if (out.nextWakeAt !== null) this.scheduleWake(out.nextWakeAt);
    // A full batch means more may be ready right now.
    if (claimMax > 0 && out.claimed.length === claimMax) this.wake();
    this.notifyIdle();
  }

  /** Wake when the wall-clock time `at` may be claimed (after any hold keeping it back). */
  private scheduleWake(at: number): void {
    this.wakeIn(this.holds.msUntil(at, this.o.clock.now()));
  }

  private wakeIn(delay: number): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = null;
        this.wake();
      },
      Math.min(delay, 2 ** 31 - 1),
    );
    this.wakeTimer.unref();
  }

  private startTask(claim: ClaimedTask): void {
    const { task } = claim;
    const entry: Running = {
      claim,
      abort: new LazyAbort(),
      output: new TailBuffer(BOUNDS.outputChars),
      timers: [],
      settled: false,
      handlerDone: Promise.resolve(),
    };
    this.running.set(task.id, entry);
    this.holds.remove(task.id);
    const handler = this.o.registry.get(task.kind);
    if (!handler) {
      this.settle(
        entry,
        new PermanentError(`no handler for kind "${task.kind}" in worker ${this.o.worker.id}`),
      );
      return;
    }
    const timeout = task.timeout ?? handler.defaultTimeoutMs;
    if (timeout !== undefined && timeout !== null) {
      entry.timers.push(setTimeout(() => this.abort(task.id, new TaskTimeoutError(timeout)), timeout));
    }
    let payload: unknown;
    try {
      payload = handler.payload.parse(task.payload);
    } catch (err) {
      this.settle(
        entry,
        new PermanentError(`payload no longer valid for kind "${task.kind}": ${String(err)}`),
      );
      return;
    }
    const ctx = new TaskContext(
      task,
      entry.abort,
      (text: string) => entry.output.push(text),
      (fraction: number) => this.noteProgress(task.id, fraction),
      this.o.worker.id,
    );
    entry.handlerDone = Promise.resolve()
      .then(() => handler.run(payload, ctx))
      .then(
        (result) => this.settle(entry, SUCCESS, result),
        (err: unknown) => this.settle(entry, err),
      );
  }

  private abort(id: number, reason: Error): void {
    const entry = this.running.get(id);
    if (!entry || entry.settled || entry.abort.aborted) return;
    entry.abort.abort(reason);
    // A handler that ignores its signal still runs: its task stays running (leased, renewed,
    // counted against every limit) until it returns, so nothing else takes its slot meanwhile.
    const grace = setTimeout(() => {
      this.o.logger.warn(
        `task ${id}'s handler ignored its abort (${reason.message}) for ${this.o.abortGraceMs} ms: ` +
          'its slot stays taken until it returns (JavaScript cannot be stopped from outside; ' +
          'restarting the worker ends it)',
      );
    }, this.o.abortGraceMs);
    grace.unref();
    entry.timers.push(grace);
  }

  private settle(entry: Running, err: unknown, result?: unknown): void {
    if (entry.settled) return;
    entry.settled = true;
    for (const t of entry.timers) clearTimeout(t);
    const { task, historyId } = entry.claim;
    const output = entry.output.text();
    const reason: unknown = entry.abort.aborted ? entry.abort.reason : null;
    if (reason instanceof LeaseLostError || reason instanceof ShutdownError) {
      // Someone else owns it now, or stop() releases it: nothing of ours to write.
      if (reason instanceof LeaseLostError) this.dropRunning(entry);
      return;
    }
    const base = { taskId: task.id, attempt: task.attempts, historyId, output };
    if (err === SUCCESS && reason === null) {
      this.finishes.push({ ...base, status: 'done', result: boundResult(result) });
    } else {
      const failure: Failure =
        reason instanceof TaskCancelledError
          ? { type: 'cancelled' }
          : reason instanceof TaskTimeoutError
            ? { type: 'timeout' }
            : {
                type: 'error',
                permanent: err instanceof PermanentError,
                retryAfterMs: err instanceof RetryAfterError ? err.ms : null,
              };
      const now = this.o.clock.now();
      const decision = decideAfterFailure(task, failure, now, this.o.backoff, this.o.random);
      if (decision.runAt !== undefined) this.holds.add(task.id, decision.runAt, decision.runAt - now);
      const message = reason instanceof Error && failure.type !== 'error' ? reason.message : describe(err);
      this.finishes.push({ ...base, ...decision, error: truncateHead(message, BOUNDS.errorChars) });
    }
    this.wake();
  }

  private dropRunning(entry: Running): void {
    entry.settled = true;
    for (const t of entry.timers) clearTimeout(t);
    this.running.delete(entry.claim.task.id);
    this.notifyIdle();
  }

  private noteProgress(id: number, fraction: number): void {
    if (!Number.isFinite(fraction)) return;
    this.progress.set(id, Math.min(1, Math.max(0, fraction)));
    if (this.progressTimer) return;
    this.progressTimer = setTimeout(() => {
      this.progressTimer = null;
      this.flushProgress();
    }, 250);
    this.progressTimer.unref();
  }

  private flushProgress(): void {
    if (this.progress.size === 0) return;
    const updates = this.progress;
    this.progress = new Map();
    try {
      this.o.store.setProgress(updates, this.o.worker);
      this.o.onChange([...updates.keys()]);
    } catch (err) {
      this.o.logger.warn(`progress not saved: ${String(err)}`);
    }
  }

  private notifyIdle(): void {
    if (this.running.size > 0 || this.finishes.length > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

/** What a handler's settle passes for "returned" (any thrown value, null included, is a failure). */
const SUCCESS = Symbol('success');

function describe(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (err === null || err === undefined) return `the handler threw ${String(err)} (no error given)`;
  return String(err);
}

export type { Task };
