/**
 * The dispatcher: one per process that runs tasks. It never polls per task. It runs a "tick"
 * (one write transaction: write the finished attempts, claim what the limits allow) whenever
 * something may have changed: a task finished or was enqueued here (woken at once), another
 * process committed (the store's `watch`), or a delayed task / rate window / Retry-After block
 * comes due (a timer set to that time). Each store call is awaited once per tick, renewal or reap
 * (never once per task), and at most one of each is under way at a time.
 *
 * Finishes that land in the same event-loop turn share one transaction, and a task is reported
 * done (events, faces) only after that transaction committed.
 *
 * Time: the wall clock is the file's shared timeline (run_at, leases), and it can step. Waits this
 * process measures itself use the monotonic clock: Node's timers (renewal, timeouts, grace) are
 * monotonic already; a backoff it set is held for its full duration (DelayHolds), and another
 * owner's lease is judged by how long this process has watched it go unrenewed (LeaseWatch).
 */
import { BOUNDS, TailBuffer } from '../bounded.ts';
import { systemMonotonic, type Clock, type MonotonicClock } from '../clock.ts';
import { PermanentError, TaskCancelledError, TaskTimeoutError } from '../errors.ts';
import type { HandlerRegistry } from '../handlers/registry.ts';
import type { Logger } from '../logger.ts';
import type { ClaimedTask, Finish, LeaseHolder, TaskStore, WorkerIdentity } from '../store/task-store.ts';
import type { Task } from '../../../shared/domain.ts';
import type { DispatchConfig } from '../engine/config.ts';
import { DelayHolds } from './delay-holds.ts';
import { ProgressWriter } from './progress-writer.ts';
import { finishOf, SUCCESS } from './finish.ts';
import { Reaper } from './reaper.ts';
import { WriteFailures } from './write-failures.ts';
import { LazyAbort } from './lazy-abort.ts';
import { TaskContext } from './task-context.ts';

export interface DispatcherOptions {
  store: TaskStore;
  registry: HandlerRegistry;
  /** the wall clock */
  clock: Clock;
  /** measures this process's own waits (default `performance.now()`) */
  monotonic?: MonotonicClock;
  worker: WorkerIdentity;
  logger: Logger;
  /** leases, batch sizes, backoff: resolved once by the engine (engine/config.ts) */
  config: DispatchConfig;
  /** called after each commit with the ids whose state changed */
  onChange: (ids: number[]) => void;
  /** called when another process changed the queue */
  onExternalChange: () => void;
  /** is this lease owner a process on this machine that is gone? */
  isOwnerDead: (owner: { id: string; pid: number | null; host: string | null }) => boolean;
  /** whether a lease owner's process still runs on this machine (default: by its pid) */
  isOwnerRunning?: (owner: LeaseHolder) => boolean;
  /** one line for a failed store call, naming the queue and the condition (default `String(err)`) */
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
  private readonly o: DispatcherOptions;
  private readonly c: DispatchConfig;
  private readonly holds: DelayHolds;
  private readonly reaper: Reaper;
  private readonly writeFailures: WriteFailures;
  private readonly describeError: (err: unknown) => string;
  /** the kinds this worker claims: fixed once it starts, so not re-listed every tick */
  private readonly kinds: readonly string[];
  /** claims are held back behind a delay (said once per episode) */
  private holding = false;
  private readonly running = new Map<number, Running>();
  private finishes: Finish[] = [];
  private tickScheduled = false;
  /** the tick under way, if any: a wake meanwhile runs one more after it */
  private ticking: Promise<void> | null = null;
  private tickAgain = false;
  private renewing = false;
  private wakeTimer: ReturnType<typeof setTimeout> | null = null;
  private intervals: ReturnType<typeof setInterval>[] = [];
  private unwatch: (() => void) | null = null;
  private state: 'idle' | 'running' | 'stopping' | 'stopped' = 'idle';
  private readonly progress: ProgressWriter;
  private idleWaiters: (() => void)[] = [];

  constructor(options: DispatcherOptions) {
    this.kinds = options.registry.kinds();
    this.o = options;
    this.c = options.config;
    const mono = options.monotonic ?? systemMonotonic;
    this.holds = new DelayHolds(mono, this.c.maxHoldMs);
    this.writeFailures = new WriteFailures(options.logger, mono);
    this.describeError = options.describeError ?? ((err) => String(err));
    this.progress = new ProgressWriter(options.store, options.worker, options.logger, options.onChange);
    this.reaper = new Reaper({
      ...options,
      monotonic: mono,
      leaseMs: this.c.leaseMs,
      dueNow: () => this.dueNow(),
      onReclaimed: (ids) => this.o.onChange(ids),
      wake: () => this.wake(),
      reapSoon: () => {
        if (this.state === 'running') void this.guarded(() => this.reaper.reap());
      },
    });
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
    this.unwatch = this.o.store.watch(() => this.externalChange());
    this.every(Math.max(50, Math.floor(this.c.leaseMs / 3)), () => this.renew());
    this.every(this.c.reapIntervalMs, () => this.reaper.reap());
    void this.guarded(() => this.reaper.reap());
    this.wake();
  }

  /** Run a tick soon (coalesced: many wakes in one turn make one transaction). */
  wake(): void {
    if (this.tickScheduled || this.state === 'stopped' || this.state === 'idle') return;
    this.tickScheduled = true;
    setImmediate(() => void this.tick());
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
    this.unwatch?.();
    this.unwatch = null;
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
        new Promise((r) => setTimeout(r, Math.min(this.c.abortGraceMs, 1000)).unref()),
      ]);
      const ids = left.map((r) => r.claim.task.id);
      for (const r of left) this.dropRunning(r);
      try {
        const released = await this.o.store.releaseLeases(this.o.worker, ids, this.dueNow());
        if (released.length) this.o.onChange(released);
      } catch (err) {
        this.o.logger.error(`could not release leases (they will expire): ${this.describeError(err)}`);
      }
    }
    // Write whatever finished meanwhile (after the tick under way, if any).
    await this.ticking;
    if (this.finishes.length) await this.tick();
    await this.progress.flush();
    this.state = 'stopped';
    for (const t of this.intervals) clearInterval(t);
    this.intervals = [];
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.progress.stop();
  }

  private every(ms: number, fn: () => Promise<void>): void {
    const t = setInterval(() => void this.guarded(fn), ms);
    t.unref();
    this.intervals.push(t);
  }

  /** Renewals and reaps fail for the same reasons as ticks (disk full, read-only): one episode. */
  private async guarded(fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.writeFailures.failed(this.describeError(err), this.finishes.length);
    }
  }

  private externalChange(): void {
    if (this.state !== 'running' && this.state !== 'stopping') return;
    this.o.onExternalChange();
    // Another process may have cancelled one of ours, or taken one of ours after a stall.
    if (this.running.size > 0) void this.guarded(() => this.renew());
    this.wake();
  }

  private async renew(): Promise<void> {
    if (this.running.size === 0 || this.renewing) return;
    const ids = [...this.running.values()].filter((r) => !r.settled).map((r) => r.claim.task.id);
    if (ids.length === 0) return;
    this.renewing = true;
    let out;
    try {
      out = await this.o.store.renewLeases(this.o.worker, ids, this.o.clock.now(), this.c.leaseMs);
    } finally {
      this.renewing = false;
    }
    this.writeFailures.succeeded();
    for (const id of out.lost) this.abort(id, new LeaseLostError());
    for (const id of out.cancelRequested) this.abort(id, new TaskCancelledError());
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

  /** One tick at a time: a tick asked for while one is under way runs right after it. */
  private tick(): Promise<void> {
    this.tickScheduled = false;
    if (this.ticking) {
      this.tickAgain = true;
      return this.ticking;
    }
    const t = this.tickOnce().finally(() => {
      this.ticking = null;
      if (this.tickAgain) {
        this.tickAgain = false;
        this.wake();
      }
    });
    this.ticking = t;
    return t;
  }

  private async tickOnce(): Promise<void> {
    if (this.state === 'stopped') return;
    const finishes = this.finishes;
    this.finishes = [];
    // Slots whose finish this transaction writes are free for its claims. Counted as taken, a
    // worker at its maxInFlight whose tasks all settled before one tick (same-turn timers, or
    // finishes held back while the disk was full) claimed nothing and was never woken again.
    const settling = finishes.filter((f) => this.running.get(f.taskId)?.settled === true).length;
    const claimMax =
      this.state === 'running'
        ? Math.min(this.c.claimBatch, this.c.maxInFlight - (this.running.size - settling))
        : 0;
    if (finishes.length === 0 && claimMax <= 0) return;
    let out;
    try {
      out = await this.o.store.tick({
        now: () => this.dueNow(),
        worker: this.o.worker,
        leaseMs: this.c.leaseMs,
        finishes,
        claimMax,
        reservedOnly: this.c.reservedOnly,
        kinds: this.kinds,
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
      (fraction: number) => this.progress.note(task.id, fraction),
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
        `task ${id}'s handler ignored its abort (${reason.message}) for ${this.c.abortGraceMs} ms: ` +
          'its slot stays taken until it returns (JavaScript cannot be stopped from outside; ' +
          'restarting the worker ends it)',
      );
    }, this.c.abortGraceMs);
    grace.unref();
    entry.timers.push(grace);
  }

  private settle(entry: Running, err: unknown, result?: unknown): void {
    if (entry.settled) return;
    entry.settled = true;
    for (const t of entry.timers) clearTimeout(t);
    const reason: unknown = entry.abort.aborted ? entry.abort.reason : null;
    if (reason instanceof LeaseLostError || reason instanceof ShutdownError) {
      // Someone else owns it now, or stop() releases it: nothing of ours to write.
      if (reason instanceof LeaseLostError) this.dropRunning(entry);
      return;
    }
    const now = this.o.clock.now();
    const finish = finishOf(entry.claim, entry.output.text(), { err, reason, result }, now, this.c);
    if (finish.status !== 'done' && finish.runAt !== undefined)
      this.holds.add(finish.taskId, finish.runAt, finish.runAt - now);
    this.finishes.push(finish);
    this.wake();
  }

  private dropRunning(entry: Running): void {
    entry.settled = true;
    for (const t of entry.timers) clearTimeout(t);
    this.running.delete(entry.claim.task.id);
    this.notifyIdle();
  }

  private notifyIdle(): void {
    if (this.running.size > 0 || this.finishes.length > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

export type { Task };
