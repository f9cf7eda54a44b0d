/**
 * The storage contract the engine owns (docs/ARCHITECTURE.md, "The store contract"). The engine
 * and the dispatcher talk only to this interface, and get an implementation only from
 * `openStore` (open-store.ts). SQLite is one backend; a second one (PostgreSQL) implements the same
 * methods and passes the same conformance suite (test/conformance/).
 *
 * Every method is asynchronous, so a backend over the network fits; every method that changes
 * state is one transaction. The caller batches (one `tick` per turn of the dispatcher, not one call
 * per task), so the cost of a call is paid per batch. Errors leave as StorageError or
 * SchemaTooNewError (electron/core/errors.ts), naming `location`.
 */
import type {
  EnqueueResult,
  GateConfig,
  GroupInfo,
  JsonValue,
  Metrics,
  QueueSettings,
  ResourceInfo,
  ResourceUse,
  Stats,
  Task,
  TaskPage,
  TaskStatus,
  TaskWithHistory,
  WorkerLeases,
} from '../../../shared/domain.ts';
import type { GateVerdict } from './gate-row.ts';
import type { ScheduleStore } from './schedule-store.ts';
import type { GateUpdate, GroupUpdate, ListQuery, SettingsUpdate } from '../../../shared/schemas.ts';
import type { BulkAction, TaskFilter } from '../../../shared/task-filter.ts';

/** A task ready to be written, after validation and defaults. */
export interface NewTask {
  kind: string;
  name: string;
  group: string;
  priority: number;
  /** the payload as stored (JSON text) */
  payload: string;
  maxAttempts: number;
  runAt: number;
  timeout: number | null;
  unique: string | null;
  /** Only this worker may claim it (a `semaforo run` waiting to run its own command). */
  reservedFor?: WorkerIdentity | null;
  /** Enqueued by this schedule for this due time (null for a run-now); unique together. */
  schedule?: { id: number; dueAt: number | null } | null;
  /** Named resources it holds while it runs, sorted by name (absent: none). */
  uses?: readonly ResourceUse[];
}

export type { EnqueueResult };

/** Who holds a lease: unique per dispatcher instance, with the process for dead-owner checks. */
export interface WorkerIdentity {
  id: string;
  pid: number;
  host: string;
}

/** A lease owner as the store shows it to the reaper. */
export interface LeaseHolder {
  id: string;
  pid: number | null;
  host: string | null;
  /** its latest lease (the owner's wall clock); absent for a `semaforo run` waiting for its task */
  leaseExpiresAt?: number | null;
}

/** A task `reclaimLost` took from an owner that is gone, and the status it left it in. */
export interface ReclaimedTask {
  id: number;
  /** pending (back in the queue), failed (no attempts left) or cancelled */
  status: TaskStatus;
}

/** A task this worker now leases, with its history row for the attempt. */
export interface ClaimedTask {
  task: Task;
  historyId: number;
}

/** How a claimed attempt ended, as decided by the dispatcher's retry policy. */
export type Finish =
  | {
      taskId: number;
      attempt: number;
      historyId: number;
      status: 'done';
      result: string | null;
      output: string | null;
      /** the handler said the vendor's quota is used up: no start in the group until then */
      blockGroupUntil?: number;
      /** ms a machine gate kept the attempt stopped (--pause-running) */
      pausedMs?: number;
    }
  | {
      taskId: number;
      attempt: number;
      historyId: number;
      status: 'retrying' | 'failed' | 'cancelled';
      /** recorded in history; 'retry-after' does not use up an attempt */
      outcome: 'failed' | 'retry' | 'retry-after' | 'timeout' | 'cancelled';
      error: string;
      output: string | null;
      /** when status is 'retrying' */
      runAt?: number;
      /** a Retry-After from the vendor slows the whole group until then */
      blockGroupUntil?: number;
      /** that wait is Semaforo's default, the vendor named none (adaptive-row.ts) */
      waitGuessed?: boolean;
      /** a throttle signal, also once past the task's Retry-After budget (adaptive-row.ts) */
      throttled?: boolean;
      /** as for 'done' */
      pausedMs?: number;
    };

export interface TickInput {
  /**
   * The time to claim and stamp with, read once the write lock is held: a time read before
   * waiting for the lock can be seconds old under contention, and claims stamped out of commit
   * order let another process's sliding-window rate check miss (or prune) starts it must count.
   * A store may call it twice: PostgreSQL stamps the ends it commits before its claim's
   * transaction (postgres/tick-apart.ts), and reads it again under the lock for the claim; no
   * limit reads an end's time (concurrency counts rows, rate windows count starts).
   */
  now: () => number;
  worker: WorkerIdentity;
  leaseMs: number;
  finishes: readonly Finish[];
  /** how many tasks this worker may take now (its own in-flight room) */
  claimMax: number;
  /**
   * Judges the machine gates (as stored) on this worker's machine, inside the claim: a closed
   * one holds back every start, or its group's. Absent: gates are not judged.
   */
  gates?: (gates: readonly GateConfig[]) => GateVerdict;
  /** claim only tasks reserved for this worker (and never anyone else's) */
  reservedOnly?: boolean;
  /**
   * claim only tasks of these kinds (the worker's handlers); absent: any kind. Others stay
   * pending for a worker that has their handler, instead of failing here.
   */
  kinds?: readonly string[];
  /**
   * Write the finishes without waiting for the disk: the caller reports them only once
   * `syncResults()` has resolved after this tick (group commit: one wait for several ticks).
   * Only for a store that has `syncResults`.
   */
  deferSync?: boolean;
}

export interface TickOutput {
  claimed: ClaimedTask[];
  /** finishes that applied; the others had lost their lease (someone else owns the task now) */
  applied: Finish[];
  /** the earliest time something may become claimable, if nothing is now (null: only on a write) */
  nextWakeAt: number | null;
}

export interface RenewResult {
  /** tasks this worker thinks it runs but no longer leases: abort them */
  lost: number[];
  /** tasks of this worker the user asked to cancel */
  cancelRequested: number[];
  /**
   * tasks leased to this worker, not among `runningIds`, claimed a lease or more before `now`:
   * a claim whose commit the worker could not confirm (the database went away during COMMIT)
   * and so never ran; the caller gives them back unless a claim of its own was under way
   */
  strays: StrayClaim[];
}

/** A stray (RenewResult.strays): the task, and the attempt the claim that leased it opened. */
export interface StrayClaim {
  id: number;
  /**
   * the history id of its open attempt: every claim opens one of its own (a start stamp is no
   * such name: a claim held back behind a delay stamps the same time again); null when none
   */
  attemptId: number | null;
}

export interface BulkOptions {
  /** act on at most this many, in id order */
  max: number;
  /** act only on ids up to this one (the last a dry run counted) */
  throughId?: number;
  /** answer what would be done, write nothing */
  dryRun?: boolean;
}

export interface BulkOutcome {
  /** retried, cancelled while waiting, or deleted */
  ids: number[];
  /** running tasks whose worker is asked to stop them (cancel) */
  requested: number[];
}

/** Failed tasks sharing a kind and an error, word for word (`failedByError`). */
export interface FailedErrorCount {
  kind: string;
  error: string | null;
  count: number;
}

/** A group's waiting tasks that are due (`oldestWaiting`). */
export interface GroupWaiting {
  group: string;
  /** pending or retrying tasks whose run_at has come */
  count: number;
  /** the longest-due one's due time: the later of its enqueue and its run_at */
  dueSince: number;
}

/** Tasks that finished in one bucket of `finishedSeries`. */
export interface FinishedBucket {
  done: number;
  failed: number;
  /** the same per group, for the groups that finished any in the bucket */
  groups: Map<string, { done: number; failed: number }>;
}

export interface TaskStore {
  /**
   * The queue's location as shown to people: a file path, or a server URL without its password.
   * Storage errors name it.
   */
  readonly location: string;
  /**
   * Optional: the claim batch this store drains best with, used when the engine is given none
   * (PostgreSQL: a tick is round trips to a server, so it pays to end and claim more per tick).
   */
  readonly claimBatch?: number;
  /** The schedules kept in the same queue (their firing enqueues in the same transaction). */
  readonly schedules: ScheduleStore;
  enqueue(tasks: readonly NewTask[], now: number): Promise<EnqueueResult[]>;
  /**
   * The dispatcher's hot path: write finishes, then claim. A store may commit the finishes before
   * the claim (PostgreSQL does); finishes committed under a claim that failed are reported
   * applied by the next tick that hands them again.
   */
  tick(input: TickInput): Promise<TickOutput>;
  renewLeases(
    worker: WorkerIdentity,
    runningIds: readonly number[],
    now: number,
    leaseMs: number,
  ): Promise<RenewResult>;
  /**
   * Return to the queue the running tasks of every owner that `isLost` (its process is gone, or
   * its lease stalled as the caller judges it), and cancel the waiting reservations of gone `run`
   * processes; returns each with the status it now has. `now` only stamps what is written.
   */
  reclaimLost(now: number, isLost: (owner: LeaseHolder) => boolean): Promise<ReclaimedTask[]>;
  /**
   * If the wall clock stepped back (the file's newest records of the past lie ahead of `now`),
   * moves what was stamped before the step back by the step, so waits keep what they had left;
   * resolves to the step in ms, or null when there was none.
   */
  rebaseAfterClockStep(now: number): Promise<number | null>;
  /**
   * On shutdown, and for strays: give back this worker's leases without counting the attempt.
   * `attemptIds` (one per task id): give a task back only while this is still its open attempt.
   */
  releaseLeases(
    worker: WorkerIdentity,
    taskIds: readonly number[],
    now: number,
    attemptIds?: readonly number[],
  ): Promise<number[]>;
  setProgress(updates: ReadonlyMap<number, number>, worker: WorkerIdentity): Promise<void>;
  /**
   * The output tail of running attempts so far, by history id: written only while the attempt
   * is still running under `worker` (its finish writes the final tail). Not durable on its own.
   */
  setLiveOutput(updates: ReadonlyMap<number, string>, worker: WorkerIdentity): Promise<void>;

  retry(ids: readonly number[], now: number): Promise<number[]>;
  /**
   * Retry, cancel or delete every task `filter` matches that the action applies to, up to `max`
   * in id order (policy/bulk-rules.ts decides which); the others are passed over, not refused.
   * One transaction. A retry records the attempt count each task had, as `retry` does.
   */
  actOnMatching(action: BulkAction, filter: TaskFilter, now: number, opts: BulkOptions): Promise<BulkOutcome>;
  cancel(ids: readonly number[], now: number): Promise<{ cancelled: number[]; requested: number[] }>;
  remove(ids: readonly number[]): Promise<number[]>;
  setPriority(id: number, priority: number, now: number): Promise<Task>;
  updateGroup(name: string, update: GroupUpdate): Promise<GroupInfo>;
  updateSettings(update: SettingsUpdate): Promise<QueueSettings>;
  /** Creates a named resource or changes its capacity (at once: the next claim uses it). */
  setResource(name: string, capacity: number): Promise<ResourceInfo>;
  /** Deletes a resource; its holders run on, its waiters wait until it exists again. */
  removeResource(name: string): Promise<boolean>;
  /** Creates or changes the machine gate of a group (null: of the whole queue). */
  setGate(group: string | null, update: GateUpdate): Promise<GateConfig>;
  removeGate(group: string | null): Promise<boolean>;
  /** the gates alone (a dispatcher pausing running tasks reads them every few seconds) */
  listGates(): Promise<GateConfig[]>;
  purgeFinished(before: number): Promise<number>;

  getTask(id: number): Promise<TaskWithHistory | null>;
  listTasks(query: ListQuery): Promise<TaskPage>;
  stats(now: number, recentFailures: number): Promise<Stats>;
  /** Tasks that failed for good after the (finishedAt, id) cursor, oldest first. */
  failedSince(after: { at: number; id: number }, limit: number): Promise<Task[]>;
  /**
   * Every failed task counted by (kind, error) in one read, the rows themselves left in the
   * database: what the Failures screen groups by cause (policy/bulk-rules.ts) beyond its page.
   */
  failedByError(): Promise<FailedErrorCount[]>;
  settings(): Promise<QueueSettings>;
  metrics(now: number, windowMs: number): Promise<Metrics>;
  /**
   * The done and failed tasks per bucket of `bucketMs` before `now`, newest first, `count`
   * buckets, in one read, in total and per group (`store/finished-buckets.ts`): bucket k holds finish times in (now - (k+1)·bucketMs, now - k·bucketMs],
   * the oldest also its start, the newest also any time after `now` (another host's clock).
   */
  finishedSeries(now: number, bucketMs: number, count: number): Promise<FinishedBucket[]>;
  /**
   * Every owner of a running task's lease with the tasks it holds (store/lease-holders.ts
   * `byOwner`): the Workers screen and `semaforo workers`. A `run` waiting for its task holds a
   * reservation, not a lease, and is not listed.
   */
  leaseHolders(): Promise<WorkerLeases[]>;
  /**
   * Per group with any, its waiting tasks that are due at `now` and the longest-due one's due
   * time (a task delayed into the future is not waiting yet): the Groups screen's "oldest waiting".
   */
  oldestWaiting(now: number): Promise<GroupWaiting[]>;
  /**
   * Calls `listener` (coalesced) after another connection or process committed a change, so a
   * dispatcher or a read-only face learns of it without asking. Returns an unsubscribe.
   */
  watch(listener: () => void): () => void;
  /**
   * Optional: resolves once every commit this store made before the call is on disk (a tick
   * written with `deferSync`, and everything before it). Runs off the caller's thread, so ticks
   * go on meanwhile; a backend whose commits are always durable omits it.
   */
  syncResults?(): Promise<void>;
  /**
   * Optional: throws a StorageError naming the location and the reason unless this process can
   * write the queue (a backend that cannot tell omits it).
   */
  checkWritable?(): void;
  /**
   * Optional: one line naming the location and the damage if the stored data is damaged (SQLite:
   * PRAGMA quick_check reads every page), else null; a backend that cannot tell omits it.
   */
  checkIntegrity?(): string | null;
  /**
   * Optional: the local file this store writes, when it is one and can be lost under it (deleted
   * or replaced); the engine's file guard watches it. Absent for servers and in-memory copies.
   */
  readonly file?: string;
  close(): Promise<void>;
}

export type { JsonValue };
