/**
 * The dispatcher: one per process that runs tasks. It never polls per task. It runs a "tick"
 * (one write transaction: write the finished attempts, claim what the limits allow) whenever
 * something may have changed: a task finished or was enqueued here (woken at once), another
 * process committed (the store's `watch`), or a delayed task / rate window / Retry-After block
 * comes due (a timer set to that time). Each store call is awaited once per tick, renewal or reap
 * (never once per task), and at most one of each is under way at a time.
 *
 * Finishes that land in the same event-loop turn share one transaction, and a task is reported
 * done (events, faces) only after that transaction committed, and (group commit) was synced.
 *
 * Time: the wall clock is the file's shared timeline (run_at, leases), and it can step. Waits this
 * process measures itself use the monotonic clock: Node's timers (renewal, timeouts, grace) are
 * monotonic already; a backoff it set is held for its full duration (DelayHolds), and another
 * owner's lease is judged by how long this process has watched it go unrenewed (LeaseWatch).
 */
import { systemMonotonic } from '../clock.ts';
import { TaskCancelledError } from '../errors.ts';
import type { ClaimedTask } from '../store/task-store.ts';
import type { Task } from '../../../shared/domain.ts';
import type { DispatchConfig } from '../engine/config.ts';
import { DelayHolds } from './delay-holds.ts';
import { OutputWriter } from './output-writer.ts';
import { ProgressWriter } from './progress-writer.ts';
import { finishOf } from './finish.ts';
import { giveBack, idleOrDeadline } from './give-back.ts';
import { PendingResults } from './pending-results.ts';
import { LeaseRenewal } from './lease-renewal.ts';
import { Spaced } from './spaced.ts';
import { Reaper } from './reaper.ts';
import {
  abortRunning,
  clearTimers,
  LeaseLostError,
  newRunning,
  ShutdownError,
  startHandler,
  type Running,
  type RunParts,
} from './running-task.ts';
import { TickLoop } from './tick-loop.ts';
import { WriteFailures } from './write-failures.ts';
import type { DispatcherOptions } from './options.ts';
import { warningsAsInfo } from '../logger.ts';
import { GATE_SAMPLE_MS, GateWatch } from './gate-watch.ts';
import { pausedMsOf, RunningPauses } from './pause-running.ts';

export type { DispatcherOptions };

/** At most one renewal per this long on other processes' changes (a cancel is seen within it). */
const CHANGE_RENEW_GAP_MS = 200;

export class Dispatcher {
  private readonly o: DispatcherOptions;
  private readonly c: DispatchConfig;
  private readonly holds: DelayHolds;
  private readonly reaper: Reaper;
  private readonly writeFailures: WriteFailures;
  private readonly describeError: (err: unknown) => string;
  /** the kinds this worker claims: fixed once it starts, so not re-listed every tick */
  private readonly kinds: readonly string[];
  private readonly running = new Map<number, Running>();
  private readonly results: PendingResults;
  private readonly loop: TickLoop;
  private readonly runParts: RunParts;
  private readonly renewal: LeaseRenewal;
  /** renewals on other processes' changes, spaced (externalChange) */
  private readonly changeRenewal: Spaced;
  private ticksStarted = 0;
  private ticksEnded = 0;
  private intervals: ReturnType<typeof setInterval>[] = [];
  private unwatch: (() => void) | null = null;
  private state: 'idle' | 'running' | 'stopping' | 'stopped' = 'idle';
  private readonly progress: ProgressWriter;
  private readonly output: OutputWriter;
  private readonly gates: GateWatch;
  private readonly pauses: RunningPauses;

  constructor(options: DispatcherOptions) {
    this.kinds = options.registry.kinds();
    // A `run`'s gate and reaper chores are no news to its caller (cron mails stderr): --verbose.
    const chores = options.config.reservedOnly ? warningsAsInfo(options.logger) : options.logger;
    this.gates = new GateWatch(options.readMachine, (m) => chores.warn(m));
    this.o = options;
    this.c = options.config;
    const mono = options.monotonic ?? systemMonotonic;
    this.pauses = new RunningPauses({
      ...options,
      ownCommand: options.config.reservedOnly,
      monotonic: mono,
      judge: (g) => this.gates.judge(g),
      entries: () => this.running.values(),
      wake: () => this.wake(),
    });
    this.holds = new DelayHolds(mono, this.c.maxHoldMs);
    this.writeFailures = new WriteFailures(options.logger, mono);
    this.describeError = options.describeError ?? ((err) => String(err));
    this.progress = new ProgressWriter(options.store, options.worker, options.logger, options.onChange);
    this.output = new OutputWriter(options.store, options.worker, options.logger, options.onChange);
    this.loop = new TickLoop(
      () => {
        this.ticksStarted++;
        return this.tickOnce().finally(() => this.ticksEnded++);
      },
      () => this.state === 'running' || this.state === 'stopping',
    );
    this.results = new PendingResults({
      ...options,
      syncFailed: (err) => this.writeFailures.failed(this.describeError(err), this.results.length),
      syncSucceeded: () => this.writeFailures.succeeded(),
      running: () => this.running.size,
    });
    this.runParts = {
      registry: options.registry,
      workerId: options.worker.id,
      settle: (entry, err, result) => this.settle(entry, err, result),
      abort: (id, reason) => this.abort(id, reason),
      progress: (id, fraction) => this.progress.note(id, fraction),
      output: (entry) => this.output.note(entry),
      monotonic: mono,
    };
    this.changeRenewal = new Spaced(
      () => void this.guarded(() => this.renew()),
      CHANGE_RENEW_GAP_MS,
      () => mono.now(),
    );
    this.renewal = new LeaseRenewal({
      ...options,
      monotonic: mono,
      leaseMs: this.c.leaseMs,
      now: () => options.clock.now(),
      dueNow: () => this.dueNow(),
      // Settled ones too: a finish waiting for its tick is ours, not a stray to give back.
      runningIds: () => [...this.running.keys()],
      ticks: () => ({
        started: this.ticksStarted,
        ended: this.ticksEnded,
        underWay: this.loop.current !== null,
      }),
      givingBackStrays: () => this.state === 'running',
      lost: (id) => this.abort(id, new LeaseLostError()),
      cancelled: (id) => this.abort(id, new TaskCancelledError()),
    });
    this.reaper = new Reaper({
      ...options,
      logger: chores,
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
    this.every(GATE_SAMPLE_MS, () => this.pauses.check());
    void this.guarded(() => this.reaper.reap());
    this.wake();
  }

  /** Run a tick soon (coalesced: many wakes in one turn make one transaction). */
  wake(): void {
    this.loop.wake();
  }

  /** The user cancelled these tasks; abort the ones running here now rather than at the next poll. */
  abortCancelled(ids: readonly number[]): void {
    for (const id of ids) this.abort(id, new TaskCancelledError());
  }

  /** Resolves when nothing runs here and no finish awaits its commit. */
  whenIdle(): Promise<void> {
    return this.results.whenIdle();
  }

  /**
   * Graceful stop: claim nothing more, let running tasks finish until `deadlineMs`, then abort
   * the rest and give their leases back (give-back.ts).
   */
  async stop(deadlineMs = 10_000): Promise<void> {
    if (this.state === 'stopped') return;
    if (this.state === 'idle') {
      this.state = 'stopped';
      return;
    }
    this.state = 'stopping';
    this.pauses.continueAll();
    this.unwatch?.();
    this.unwatch = null;
    const first = await idleOrDeadline(this.whenIdle(), deadlineMs);
    if (first === 'deadline') {
      await giveBack([...this.running.values()], {
        ...this.o,
        dueNow: () => this.dueNow(),
        describeError: this.describeError,
        graceMs: Math.min(this.c.abortGraceMs, 1000),
        drop: (r) => this.dropRunning(r),
      });
    }
    // Write whatever finished meanwhile (after the tick under way, if any).
    await this.loop.current;
    await this.results.writeLast(() => this.loop.tick(), this.o.logger);
    await this.progress.flush();
    this.state = 'stopped';
    for (const t of this.intervals) clearInterval(t);
    this.intervals = [];
    this.changeRenewal.stop();
    this.loop.stop();
    this.progress.stop();
    this.output.stop();
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
      this.writeFailures.failed(this.describeError(err), this.results.length);
    }
  }

  private externalChange(): void {
    if (this.state !== 'running' && this.state !== 'stopping') return;
    this.o.onExternalChange();
    // Another process may have cancelled one of ours, or taken one of ours after a stall. Other
    // workers commit many times a second, and a renewal rewrites every lease this one holds.
    this.changeRenewal.call();
    this.wake();
  }

  private async renew(): Promise<void> {
    if (await this.renewal.renew()) this.writeFailures.succeeded();
  }

  /** The time this dispatcher claims and stamps with: the wall clock, held back by DelayHolds. */
  private dueNow(): number {
    return this.holds.dueNowSaying(this.o.clock.now(), (m) => this.o.logger.warn(m));
  }

  private async tickOnce(): Promise<void> {
    if (this.state === 'stopped') return;
    const finishes = this.results.take();
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
        gates: (g) => this.gates.judge(g),
        deferSync: this.results.deferSync,
      });
    } catch (err) {
      // Busy, disk full, read-only: keep the finishes and try again shortly, without a hot loop.
      this.results.putBack(finishes);
      this.writeFailures.failed(this.describeError(err), this.results.length);
      this.renewal.tickFailed();
      this.loop.wakeIn(1000);
      return;
    }
    // A tick that wrote nothing proves nothing (it commits even on a full disk).
    if (finishes.length > 0 || out.claimed.length > 0) this.writeFailures.succeeded();
    if (out.applied.length < finishes.length) {
      // A reschedule that was not written (the lease was lost) is not ours to hold.
      const applied = new Set(out.applied);
      for (const f of finishes) if (!applied.has(f)) this.holds.remove(f.taskId);
    }
    // Their slots are free now (the file says so); they are told once on the disk.
    for (const f of finishes) {
      const r = this.running.get(f.taskId);
      if (r && r.settled) this.running.delete(f.taskId);
    }
    this.results.written(finishes, (ids) => this.o.onChange(ids));
    for (const c of out.claimed) this.startTask(c);
    if (out.claimed.length > 0) this.o.onChange(out.claimed.map((c) => c.task.id));
    // A closed gate opens with no event: read the machine again soon.
    const gateAt = this.gates.anyClosed ? this.o.clock.now() + GATE_SAMPLE_MS : Infinity;
    const wakeAt = Math.min(out.nextWakeAt ?? Infinity, gateAt);
    if (wakeAt !== Infinity) this.scheduleWake(wakeAt);
    // A full batch means more may be ready right now.
    if (claimMax > 0 && out.claimed.length === claimMax) this.wake();
    this.results.notifyIdle();
  }

  /** Wake when the wall-clock time `at` may be claimed (after any hold keeping it back). */
  private scheduleWake(at: number): void {
    this.loop.wakeIn(this.holds.msUntil(at, this.o.clock.now()));
  }

  private startTask(claim: ClaimedTask): void {
    const entry = newRunning(claim);
    this.running.set(claim.task.id, entry);
    this.holds.remove(claim.task.id);
    startHandler(entry, this.runParts);
  }

  private abort(id: number, reason: Error): void {
    const entry = this.running.get(id);
    if (entry) abortRunning(entry, reason, this.c.abortGraceMs, this.o.logger, this.runParts.monotonic.now());
  }

  private settle(entry: Running, err: unknown, result?: unknown): void {
    if (entry.settled) return;
    entry.settled = true;
    clearTimers(entry);
    const reason: unknown = entry.abort.aborted ? entry.abort.reason : null;
    if (reason instanceof LeaseLostError || reason instanceof ShutdownError) {
      // Someone else owns it now, or stop() releases it: nothing of ours to write.
      if (reason instanceof LeaseLostError) this.dropRunning(entry);
      return;
    }
    const now = this.o.clock.now();
    const pausedMs = pausedMsOf(entry, this.runParts.monotonic.now());
    const outcome = { err, reason, result, groupHoldMs: entry.groupHoldMs, pausedMs };
    const finish = finishOf(entry.claim, entry.output.text(), outcome, now, this.c);
    if (finish.status !== 'done' && finish.runAt !== undefined)
      this.holds.add(finish.taskId, finish.runAt, finish.runAt - now);
    this.results.add(finish);
    this.wake();
  }

  private dropRunning(entry: Running): void {
    entry.settled = true;
    clearTimers(entry);
    this.running.delete(entry.claim.task.id);
    this.results.notifyIdle();
  }
}

export type { Task };
