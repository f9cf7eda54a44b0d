/**
 * The SQLite implementation of the engine's TaskStore: one file, shared by every process. Each
 * concern is a module with its own statements; this class opens the file and hands each call
 * to the module that serves it.
 */
import type Database from 'better-sqlite3';
import type {
  EnqueueResult,
  GateConfig,
  GroupInfo,
  Metrics,
  QueueSettings,
  ResourceInfo,
  Stats,
  Task,
  TaskPage,
  TaskWithHistory,
  WorkerLeases,
} from '../../../../shared/domain.ts';
import type { GateUpdate, GroupUpdate, ListQuery, SettingsUpdate } from '../../../../shared/schemas.ts';
import type { BulkAction, TaskFilter } from '../../../../shared/task-filter.ts';
import type {
  BulkOptions,
  BulkOutcome,
  FailedErrorCount,
  FinishedBucket,
  GroupWaiting,
  LeaseHolder,
  NewTask,
  ReclaimedTask,
  RenewResult,
  TickInput,
  TickOutput,
  WorkerIdentity,
} from '../task-store.ts';
import { ClockRebase } from './clock-rebase.ts';
import { Commits } from './commits.ts';
import { Enqueue, Intake } from './enqueue.ts';
import { Inbox } from './inbox.ts';
import { TaskInserter } from './insert-tasks.ts';
import { Leases } from './leases.ts';
import { openDatabase, WORKER_CHECKPOINT_PAGES, type OpenOptions } from './open.ts';
import { WorkerCheckpoints } from './worker-checkpoints.ts';
import { QueueSettingsStore } from './queue-settings.ts';
import { Reads } from './reads.ts';
import { GateStore } from './gates.ts';
import { ResourceStore } from './resources.ts';
import { SqliteScheduleStore } from './schedule-store.ts';
import { TaskActions } from './task-actions.ts';
import type { SyncTaskStore } from './sync-store.ts';
import { Tick } from './tick.ts';
import { prepareOnUse } from './lazy-statement.ts';

export interface StoreOptions extends OpenOptions {
  /**
   * Told of a failure of the store's own background work: waiting enqueues that cannot be moved
   * into tasks (a full disk, a damaged inbox row), a worker's checkpoint that failed.
   */
  onBackgroundError?: (message: string) => void;
}

export class SqliteTaskStore implements SyncTaskStore {
  readonly db: Database.Database;
  private readonly clockRebase: ClockRebase;
  /** what each commit waits for (see commits.ts) */
  readonly commits: Commits;
  readonly schedules: SqliteScheduleStore;
  private readonly enqueuer: Enqueue;
  private readonly ticks: Tick;
  private readonly leases: Leases;
  private readonly actions: TaskActions;
  private readonly queue: QueueSettingsStore;
  private readonly reads: Reads;
  private readonly resources: ResourceStore;
  private readonly gates: GateStore;
  private readonly dataVersionStmt: Database.Statement;
  private readonly checkpoints: WorkerCheckpoints;

  constructor(file: string, options: StoreOptions = {}) {
    this.db = openDatabase(file, options);
    const inbox = new Inbox(this.db, new TaskInserter(this.db));
    const report = options.onBackgroundError ?? (() => {});
    const intake = new Intake(this.db, inbox, report);
    // Every write transaction first moves the waiting enqueues in (see inbox.ts).
    this.commits = new Commits(this.db, options.durability === 'normal', () => intake.moveWaiting());
    this.clockRebase = new ClockRebase(this.db, this.commits);
    intake.commits = this.commits;
    this.enqueuer = new Enqueue(this.db, inbox, this.commits);
    this.ticks = new Tick(this.db, this.commits);
    this.leases = new Leases(this.db, this.commits, intake);
    this.checkpoints = new WorkerCheckpoints(this.db, WORKER_CHECKPOINT_PAGES, report);
    this.commits.afterWrite = () => this.checkpoints.afterWrite();
    this.actions = new TaskActions(this.db, this.commits);
    this.queue = new QueueSettingsStore(this.db, this.commits);
    this.resources = new ResourceStore(this.db, this.commits);
    this.gates = new GateStore(this.db, this.commits);
    this.reads = new Reads(
      this.db,
      intake,
      () => this.queue.settings(),
      () => this.resources.list(),
      () => this.gates.list(),
    );
    this.dataVersionStmt = prepareOnUse(this.db, 'PRAGMA data_version').pluck();
    this.schedules = new SqliteScheduleStore(this.db, this.commits, (tasks, now) => this.enqueue(tasks, now));
  }

  enqueue(tasks: readonly NewTask[], now: number): EnqueueResult[] {
    return this.enqueuer.enqueue(tasks, now);
  }

  tick(input: TickInput): TickOutput {
    const out = this.ticks.tick(input);
    // A worker's connection: checkpoints are its job from now on, after its writes (see open.ts).
    this.checkpoints.afterTick();
    return out;
  }

  renewLeases(
    worker: WorkerIdentity,
    runningIds: readonly number[],
    now: number,
    leaseMs: number,
  ): RenewResult {
    return this.leases.renewLeases(worker, runningIds, now, leaseMs);
  }

  reclaimLost(now: number, isLost: (owner: LeaseHolder) => boolean): ReclaimedTask[] {
    return this.leases.reclaimLost(now, isLost);
  }

  rebaseAfterClockStep(now: number): number | null {
    return this.clockRebase.rebase(now);
  }

  releaseLeases(
    worker: WorkerIdentity,
    taskIds: readonly number[],
    now: number,
    attemptIds?: readonly number[],
  ): number[] {
    return this.leases.releaseLeases(worker, taskIds, now, attemptIds);
  }

  setProgress(updates: ReadonlyMap<number, number>, worker: WorkerIdentity): void {
    this.leases.setProgress(updates, worker);
  }

  setLiveOutput(updates: ReadonlyMap<number, string>, worker: WorkerIdentity): void {
    this.leases.setLiveOutput(updates, worker);
  }

  retry(ids: readonly number[], now: number): number[] {
    return this.actions.retry(ids, now);
  }

  actOnMatching(action: BulkAction, filter: TaskFilter, now: number, opts: BulkOptions): BulkOutcome {
    return this.actions.actOnMatching(action, filter, now, opts);
  }

  cancel(ids: readonly number[], now: number): { cancelled: number[]; requested: number[] } {
    return this.actions.cancel(ids, now);
  }

  remove(ids: readonly number[]): number[] {
    return this.actions.remove(ids);
  }

  setPriority(id: number, priority: number, now: number): Task {
    return this.actions.setPriority(id, priority, now);
  }

  purgeFinished(before: number): number {
    return this.actions.purgeFinished(before);
  }

  /** `now` decides whether a Retry-After block still shows (the caller's clock; the wall clock by default). */
  updateGroup(name: string, update: GroupUpdate, now: number = Date.now()): GroupInfo {
    this.queue.updateGroup(name, update);
    return this.stats(now, 0).groups.find((g) => g.name === name)!;
  }

  updateSettings(update: SettingsUpdate): QueueSettings {
    return this.queue.updateSettings(update);
  }

  settings(): QueueSettings {
    return this.queue.settings();
  }

  setResource(name: string, capacity: number): ResourceInfo {
    return this.resources.set(name, capacity);
  }

  removeResource(name: string): boolean {
    return this.resources.remove(name);
  }

  setGate(group: string | null, update: GateUpdate): GateConfig {
    return this.gates.set(group, update);
  }

  removeGate(group: string | null): boolean {
    return this.gates.remove(group);
  }

  listGates(): GateConfig[] {
    return this.gates.list();
  }

  getTask(id: number): TaskWithHistory | null {
    return this.reads.getTask(id);
  }

  listTasks(q: ListQuery): TaskPage {
    return this.reads.listTasks(q);
  }

  failedSince(after: { at: number; id: number }, limit: number): Task[] {
    return this.reads.failedSince(after, limit);
  }

  stats(now: number, recentFailures: number): Stats {
    return this.reads.stats(now, recentFailures);
  }

  metrics(now: number, windowMs: number): Metrics {
    return this.reads.metrics(now, windowMs);
  }

  failedByError(): FailedErrorCount[] {
    return this.reads.failedByError();
  }

  finishedSeries(now: number, bucketMs: number, count: number): FinishedBucket[] {
    return this.reads.finishedSeries(now, bucketMs, count);
  }

  leaseHolders(): WorkerLeases[] {
    return this.reads.leaseHolders();
  }

  oldestWaiting(now: number): GroupWaiting[] {
    return this.reads.oldestWaiting(now);
  }

  /** Changes when another connection commits (no disk read); one statement, prepared once. */
  dataVersion(): number {
    return this.dataVersionStmt.get() as number;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
