import Database, { type Statement, type Transaction } from 'better-sqlite3';
import {
  emptyCounts,
  FINISHED_STATUSES,
  type GroupInfo,
  type Metrics,
  type MetricsRow,
  type QueueSettings,
  type Stats,
  type Task,
  type TaskPage,
  type TaskStatus,
  type TaskWithHistory,
} from '../../../../shared/domain.ts';
import { ConflictError, NotFoundError } from '../../../../shared/errors.ts';
import type { GroupUpdate, ListQuery, RetryFilter, SettingsUpdate } from '../../../../shared/schemas.ts';
import type {
  EnqueueResult,
  Finish,
  NewTask,
  RenewResult,
  TaskStore,
  TickInput,
  TickOutput,
  LeaseHolder,
  WorkerIdentity,
} from '../task-store.ts';
import { ClockRebase } from './clock-rebase.ts';
import { ClaimStatements, claimReady } from './claim.ts';
import { openDatabase, type OpenOptions } from './open.ts';
import { SqliteScheduleStore } from './schedule-store.ts';
import { Commits } from './commits.ts';
import { TaskInserter } from './insert-tasks.ts';
import { Inbox } from './inbox.ts';
import { splitByText } from './split-by-text.ts';
import { newTaskRecord, toHistory, toTask, type HistoryRow, type TaskRow } from './rows.ts';

const FINISHED = new Set<string>(FINISHED_STATUSES);

const SORT_COLUMNS = {
  createdAt: 'id',
  priority: 'priority',
  runAt: 'run_at',
  finishedAt: 'finished_at',
  name: 'name',
} as const;

/** The stored group list of the notification filter; anything unreadable means "every group". */
function readGroupList(text: string | null): string[] | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.every((g) => typeof g === 'string') ? v : null;
  } catch {
    return null;
  }
}

export interface StoreOptions extends OpenOptions {
  /** Told when waiting enqueues cannot be moved into tasks (a full disk, a damaged inbox row). */
  onInboxError?: (message: string) => void;
}

/** A row of `groups`. */
interface GroupRow {
  name: string;
  concurrency: number | null;
  rate_limit: number | null;
  rate_period_ms: number | null;
  paused: number;
  blocked_until: number | null;
}

/** What a row of `groups` holds when created (the table's defaults). */
const NEW_GROUP: Omit<GroupRow, 'name'> = {
  concurrency: null,
  rate_limit: null,
  rate_period_ms: null,
  paused: 0,
  blocked_until: null,
};

function toGroupInfo(g: GroupRow, now: number, rateUsed: number): GroupInfo {
  return {
    name: g.name,
    concurrency: g.concurrency,
    rate:
      g.rate_limit !== null && g.rate_period_ms !== null
        ? { limit: g.rate_limit, periodMs: g.rate_period_ms }
        : null,
    paused: g.paused === 1,
    blockedUntil: g.blocked_until !== null && g.blocked_until > now ? g.blocked_until : null,
    counts: emptyCounts(),
    rateUsed,
  };
}

/** After a move into tasks failed, the writes of the next this many ms go on without trying again. */
const MOVE_RETRY_MS = 1000;

/** The SQLite implementation of the engine's TaskStore: one file, shared by every process. */
export class SqliteTaskStore implements TaskStore {
  readonly db: Database.Database;
  private readonly claimSql: ClaimStatements;
  private readonly st: ReturnType<typeof prepare>;
  private readonly inserter: TaskInserter;
  private readonly inbox: Inbox;
  private readonly clockRebase: ClockRebase;
  /** what each commit waits for (see commits.ts) */
  readonly commits: Commits;
  readonly schedules: SqliteScheduleStore;
  private readonly busyTimeoutMs: number;
  private readonly moveInTx: Transaction<() => void>;
  private readonly onInboxError: (message: string) => void;
  /** performance.now() before which a move that failed is not tried again */
  private moveRetryAt = 0;

  constructor(file: string, options: StoreOptions = {}) {
    this.db = openDatabase(file, options);
    this.busyTimeoutMs = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.claimSql = new ClaimStatements(this.db);
    this.st = prepare(this.db);
    this.inserter = new TaskInserter(this.db);
    this.inbox = new Inbox(this.db, this.inserter);
    this.clockRebase = new ClockRebase(this.db);
    this.onInboxError = options.onInboxError ?? (() => {});
    this.moveInTx = this.db.transaction(() => this.inbox.moveAll());
    // Every write transaction first moves the waiting enqueues in (see inbox.ts).
    this.commits = new Commits(this.db, options.durability === 'normal', () => this.moveWaiting());
    this.schedules = new SqliteScheduleStore(this.db, this.commits, (tasks, now) => this.enqueue(tasks, now));
  }

  /**
   * Plain tasks go into the inbox with one statement. A unique key must be checked against the
   * tasks already there, and a schedule's due time is unique too: those are moved in at once,
   * inside a transaction.
   */
  enqueue(tasks: readonly NewTask[], now: number): EnqueueResult[] {
    if (tasks.length === 0) return [];
    if (tasks.some((t) => t.unique !== null || (t.schedule ?? null) !== null))
      return this.commits.run('relaxed', () => this.insertNew(tasks, now));
    const rows = this.inbox.rows(tasks);
    const append = () => this.inbox.add(rows, now);
    // A batch too big for one row takes several: one transaction keeps it all or nothing.
    const first =
      rows.length === 1 ? this.commits.statement('relaxed', append) : this.commits.run('relaxed', append);
    return tasks.map((t, i) => ({ task: newTaskRecord(first + i, t, now), created: true }));
  }

  /**
   * Moves the waiting enqueues in at the start of a write transaction, as a savepoint of its
   * own: a move that cannot be written (a full disk, a damaged row) must not stop the tick that
   * carries results, nor the purge that would free space. Tried again after MOVE_RETRY_MS.
   */
  private moveWaiting(): void {
    if (performance.now() < this.moveRetryAt || !this.inbox.waiting()) return;
    try {
      this.moveInTx();
    } catch (err) {
      // SQLite may have rolled the whole transaction back (on a full disk it can): then the
      // caller's transaction is gone and must fail too, not go on statement by statement.
      if (!(err instanceof Database.SqliteError) || !this.db.inTransaction) throw err;
      this.moveRetryAt = performance.now() + MOVE_RETRY_MS;
      this.onInboxError(
        `cannot move enqueued tasks into the queue yet (they are safe and shown): ${err.message}`,
      );
    }
  }

  /**
   * Moves waiting enqueues in before a read, so what it shows includes them; only when some
   * wait. A file this process cannot write (read-only, a full disk) leaves them in the inbox,
   * safe for the next process that can: the read then names where to find them too (the
   * inbox's view), or null when every task is in `tasks`.
   */
  private takeInWaiting(): string | null {
    if (this.db.inTransaction || !this.inbox.waiting()) return null;
    if (!this.db.readonly) {
      // A read never waits for another process's write (WAL readers do not): if one holds the
      // write lock now, the waiting tasks are read through the view and moved by the next write.
      this.db.pragma('busy_timeout = 0');
      try {
        this.commits.run('relaxed', () => {});
        if (!this.inbox.waiting()) return null;
      } catch (err) {
        if (!(err instanceof Database.SqliteError)) throw err;
      } finally {
        this.db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
      }
    }
    return this.inbox.waitingView();
  }

  /**
   * A task whose unique key is held by an unfinished task (in the file, or earlier in this batch)
   * is not inserted: the holder is returned instead. The rest go in together, in order.
   */
  private insertNew(tasks: readonly NewTask[], now: number): EnqueueResult[] {
    const out = new Array<EnqueueResult>(tasks.length);
    const fresh: NewTask[] = [];
    const freshAt: number[] = [];
    /** unique key -> index in `tasks` of the first task of this batch that holds it */
    const keys = new Map<string, number>();
    const repeats: [at: number, holder: number][] = [];
    for (let i = 0; i < tasks.length; i++) {
      const t = tasks[i]!;
      if (t.unique !== null) {
        const held = this.st.byUnique.get(t.unique);
        if (held) {
          out[i] = { task: toTask(held), created: false };
          continue;
        }
        const holder = keys.get(t.unique);
        if (holder !== undefined) {
          repeats.push([i, holder]);
          continue;
        }
        keys.set(t.unique, i);
      }
      fresh.push(t);
      freshAt.push(i);
    }
    if (fresh.length > 0) {
      const first = this.inbox.add(this.inbox.rows(fresh), now);
      // Only these: an older row that cannot be moved now must not fail this enqueue.
      this.inbox.moveAll(first);
      for (let k = 0; k < fresh.length; k++) {
        out[freshAt[k]!] = { task: newTaskRecord(first + k, fresh[k]!, now), created: true };
      }
    }
    for (const [at, holder] of repeats) out[at] = { task: out[holder]!.task, created: false };
    return out;
  }

  tick(input: TickInput): TickOutput {
    // Results are reported once this returns, so a tick with results waits for the disk; a claim
    // alone need not: lost in a power cut, the task is simply still pending.
    return this.commits.run(input.finishes.length > 0 ? 'durable' : 'relaxed', () =>
      this.tickInTransaction(input),
    );
  }

  private tickInTransaction(input: TickInput): TickOutput {
    const now = input.now(); // inside BEGIN IMMEDIATE: see TickInput.now
    const applied = this.applyFinishes(input.finishes, input.worker, now);
    const { claimed, nextWakeAt } = claimReady(
      this.claimSql,
      now,
      input.worker,
      input.leaseMs,
      input.claimMax,
      input.reservedOnly,
    );
    return { claimed, applied, nextWakeAt };
  }

  /**
   * Writes each attempt's end, only where this worker still holds that attempt's lease; returns
   * the finishes written, in the order given. The successful ends go in a few statements however
   * many there are (one per task cost a third of a drain's time).
   */
  private applyFinishes(finishes: readonly Finish[], worker: WorkerIdentity, now: number): Finish[] {
    // A task named twice (which the dispatcher never sends) goes one by one, in order, so the
    // first end that holds the lease wins as it always did.
    if (new Set(finishes.map((f) => f.taskId)).size !== finishes.length) {
      return finishes.filter((f) =>
        f.status === 'done' ? this.applyDone([f], worker, now).size === 1 : this.applyFailed(f, worker, now),
      );
    }
    const written = this.applyDone(
      finishes.filter((f): f is DoneFinish => f.status === 'done'),
      worker,
      now,
    );
    return finishes.filter((f) =>
      f.status === 'done' ? written.has(f.taskId) : this.applyFailed(f, worker, now),
    );
  }

  /** The successful ends of distinct tasks, in chunks; returns the ids written. */
  private applyDone(finishes: readonly DoneFinish[], worker: WorkerIdentity, now: number): Set<number> {
    const written = new Set<number>();
    // Bounded, so that a backlog of finishes held back while writes failed (up to every running
    // task, each with a 64 KB result) never makes a list too long to write, which would fail
    // every retry the same way.
    const chunks = splitByText(
      finishes,
      (f) => (f.result?.length ?? 0) + (f.output?.length ?? 0),
      DONE_CHUNK_CHARS,
      DONE_CHUNK,
    );
    for (const chunk of chunks) {
      // toWellFormed: a lone surrogate would reach SQLite through JSON as invalid UTF-8; bound
      // directly it became one U+FFFD, and so it does here.
      const list = JSON.stringify(chunk.map((f) => [f.taskId, f.attempt, f.result?.toWellFormed() ?? null]));
      const ids = new Set(this.st.finishDoneMany.all({ now, list, owner: worker.id }).map((r) => r.id));
      const closes = chunk
        .filter((f) => ids.has(f.taskId))
        .map((f) => [f.historyId, f.output?.toWellFormed() ?? null]);
      if (closes.length > 0) this.st.closeDoneMany.run({ now, list: JSON.stringify(closes) });
      for (const id of ids) written.add(id);
    }
    return written;
  }

  /** Writes one attempt's failed end, only if this worker still holds that attempt's lease. */
  private applyFailed(f: FailedFinish, worker: WorkerIdentity, now: number): boolean {
    const retryAfter = f.outcome === 'retry-after' ? 1 : 0;
    const changes = this.st.finishFailed.run({
      id: f.taskId,
      owner: worker.id,
      attempt: f.attempt,
      now,
      status: f.status,
      error: f.error,
      runAt: f.runAt ?? null,
      retryAfter,
    }).changes;
    if (changes !== 1) return false;
    this.st.closeAttempt.run(now, f.outcome, f.error, f.output, f.historyId);
    if (f.blockGroupUntil !== undefined) {
      const t = this.st.groupOf.get(f.taskId);
      if (t) this.st.blockGroup.run(f.blockGroupUntil, t.group_name);
    }
    return true;
  }

  renewLeases(
    worker: WorkerIdentity,
    runningIds: readonly number[],
    now: number,
    leaseMs: number,
  ): RenewResult {
    return this.commits.run('relaxed', (): RenewResult => {
      // Reapers see a renewal only as a change of the owner's latest lease, so it must change,
      // even when the wall clock stood still or stepped back onto the same millisecond.
      const latest = this.st.latestLease.get(worker.id)?.latest ?? null;
      const until = now + leaseMs === latest ? latest + 1 : now + leaseMs;
      this.st.renew.run(until, worker.id);
      const held = new Map(this.st.ownedBy.all(worker.id).map((r) => [r.id, r.cancel_requested === 1]));
      const lost = runningIds.filter((id) => !held.has(id));
      const cancelRequested = runningIds.filter((id) => held.get(id) === true);
      return { lost, cancelRequested };
    });
  }

  /**
   * Expiry is the caller's call, not a comparison with `now` here: each owner is shown with its
   * latest lease (`leaseExpiresAt`, written with the owner's wall clock), and only the caller can
   * tell an owner that stopped renewing from a clock that stepped (it watches with a monotonic
   * clock). `now` only stamps what is written.
   */
  reclaimLost(now: number, isLost: (owner: LeaseHolder) => boolean): number[] {
    this.takeInWaiting(); // a reserved task of a process now gone may still wait in the inbox
    // Cheap read first: the usual answer is "nothing to do" and needs no write lock.
    const lost = this.st.runningOwners.all().filter((o) => {
      if (o.lease_owner === null) return false;
      const holder: LeaseHolder = {
        id: o.lease_owner,
        pid: o.owner_pid,
        host: o.owner_host,
        leaseExpiresAt: o.latest,
      };
      return isLost(holder);
    });
    const deadReservers = this.st.reservers
      .all()
      .filter((r) => isLost({ id: r.reserved_for, pid: r.reserved_pid, host: r.reserved_host }));
    if (lost.length === 0 && deadReservers.length === 0) return [];
    return this.commits.run('durable', () => {
      const orphans = deadReservers.flatMap((r) =>
        this.st.cancelOrphans
          .all({
            now,
            why: `the semaforo run process that was waiting for it (pid ${r.reserved_pid}) ended`,
            owner: r.reserved_for,
          })
          .map((o) => o.id),
      );
      // An owner that renewed since the read above is alive after all: leave it be.
      const rows = lost.flatMap((o) =>
        this.st.latestLease.get(o.lease_owner!)?.latest === o.latest
          ? this.st.runningOf.all(o.lease_owner!)
          : [],
      );
      const done = new Set<number>();
      for (const r of rows) {
        if (done.has(r.id)) continue;
        done.add(r.id);
        const why = r.cancel_requested
          ? 'cancelled while its worker was gone'
          : `lease lost: worker ${r.lease_owner} stopped renewing (process ended or hung)`;
        const to: TaskStatus = r.cancel_requested
          ? 'cancelled'
          : r.attempts >= r.max_attempts
            ? 'failed'
            : 'pending';
        this.st.requeueLost.run({ to, why, now, id: r.id });
        this.st.closeRunningAttempts.run(now, 'lost', why, r.id);
      }
      return [...done, ...orphans];
    });
  }

  rebaseAfterClockStep(now: number): number | null {
    if (this.clockRebase.step(now) === null) return null;
    return this.commits.run('durable', () => {
      const d = this.clockRebase.step(now); // again under the lock: another process may have done it
      if (d !== null) this.clockRebase.apply(now, d);
      return d;
    });
  }

  releaseLeases(worker: WorkerIdentity, taskIds: readonly number[], now: number): number[] {
    return this.commits.run('durable', () => {
      const released: number[] = [];
      for (const id of taskIds) {
        if (this.st.release.run(now, id, worker.id).changes === 1) {
          this.st.closeRunningAttempts.run(
            now,
            'released',
            'worker shut down before it finished; not counted',
            id,
          );
          released.push(id);
        }
      }
      return released;
    });
  }

  setProgress(updates: ReadonlyMap<number, number>, worker: WorkerIdentity): void {
    this.commits.run('relaxed', () => {
      for (const [id, p] of updates) this.st.progress.run(p, id, worker.id);
    });
  }

  retry(ids: readonly number[], now: number): number[] {
    return this.commits.run('durable', () => {
      const out: number[] = [];
      for (const id of ids) {
        const row = this.st.get.get(id);
        if (!row) throw new NotFoundError(`task ${id} does not exist`);
        if (row.status === 'pending') continue;
        if (!['failed', 'cancelled', 'retrying'].includes(row.status)) {
          throw new ConflictError(
            `task ${id} is ${row.status}; only failed, cancelled or retrying tasks can be retried`,
          );
        }
        this.st.retry.run(now, id);
        this.st.action.run(id, row.attempts, now, now, 'retried', null);
        out.push(id);
      }
      return out;
    });
  }

  retryFailed(filter: RetryFilter, now: number): number[] {
    return this.commits.run('durable', () => {
      const ids = this.st.failedIds
        .all({ group: filter.group ?? null, kind: filter.kind ?? null })
        .map((r) => r.id);
      for (const id of ids) {
        this.st.retry.run(now, id);
        this.st.action.run(id, 0, now, now, 'retried', null);
      }
      return ids;
    });
  }

  cancel(ids: readonly number[], now: number): { cancelled: number[]; requested: number[] } {
    return this.commits.run('durable', () => {
      const cancelled: number[] = [];
      const requested: number[] = [];
      for (const id of ids) {
        const row = this.st.get.get(id);
        if (!row) throw new NotFoundError(`task ${id} does not exist`);
        if (row.status === 'pending' || row.status === 'retrying') {
          this.st.cancelWaiting.run(now, id);
          this.st.action.run(id, row.attempts, now, now, 'cancelled', 'cancelled by the user');
          cancelled.push(id);
        } else if (row.status === 'running') {
          // The worker running it aborts the handler and writes `cancelled` once it has stopped,
          // so the slot stays taken until the work really ended.
          this.st.requestCancel.run(id);
          requested.push(id);
        }
      }
      return { cancelled, requested };
    });
  }

  remove(ids: readonly number[]): number[] {
    return this.commits.run('durable', () => {
      const out: number[] = [];
      for (const id of ids) {
        const row = this.st.get.get(id);
        if (!row) continue;
        if (row.status === 'running')
          throw new ConflictError(`task ${id} is running; cancel it before deleting it`);
        this.st.deleteHistory.run(id);
        this.st.deleteTask.run(id);
        out.push(id);
      }
      return out;
    });
  }

  setPriority(id: number, priority: number, now: number): Task {
    return this.commits.run('durable', () => {
      const row = this.st.setPriority.get(priority, id);
      if (!row) throw new NotFoundError(`task ${id} does not exist`);
      this.st.action.run(id, row.attempts, now, now, 'priority', `priority set to ${priority}`);
      return toTask(row);
    });
  }

  updateGroup(name: string, update: GroupUpdate): GroupInfo {
    this.commits.run('durable', () => {
      this.st.ensureGroup.run(name);
      if (update.concurrency !== undefined) this.st.groupConcurrency.run(update.concurrency, name);
      if (update.rate !== undefined) {
        this.st.groupRate.run(update.rate?.limit ?? null, update.rate?.periodMs ?? null, name);
        if (update.rate === null) this.st.clearStarts.run(name);
      }
      if (update.paused !== undefined) this.st.groupPaused.run(update.paused ? 1 : 0, name);
    });
    return this.stats(Date.now(), 0).groups.find((g) => g.name === name)!;
  }

  updateSettings(update: SettingsUpdate): QueueSettings {
    this.commits.run('durable', () => {
      if (update.globalConcurrency !== undefined) this.st.setGlobal.run(update.globalConcurrency);
      if (update.paused !== undefined) this.st.setPaused.run(update.paused ? 1 : 0);
      if (update.retentionDays !== undefined) this.st.setRetention.run(update.retentionDays);
      if (update.notifications !== undefined) {
        const n = update.notifications;
        if (n.enabled !== undefined) this.st.setNotifyEnabled.run(n.enabled ? 1 : 0);
        if (n.groups !== undefined)
          this.st.setNotifyGroups.run(n.groups === null ? null : JSON.stringify(n.groups));
      }
      if (update.failureWebhook !== undefined) this.st.setWebhook.run(update.failureWebhook);
      if (update.durability !== undefined) this.st.setDurability.run(update.durability);
    });
    if (update.durability !== undefined) this.commits.queueDurabilityChanged(update.durability);
    return this.settings();
  }

  purgeFinished(before: number): number {
    return this.commits.run('durable', () => {
      this.st.purgeHistory.run(before);
      return this.st.purgeTasks.run(before).changes;
    });
  }

  getTask(id: number): TaskWithHistory | null {
    const waiting = this.takeInWaiting();
    return this.readAsOne(waiting, () => {
      const row =
        this.st.get.get(id) ??
        (waiting === null
          ? undefined
          : this.db.prepare<[number], TaskRow>(`SELECT * FROM ${waiting} WHERE id = ?`).get(id));
      if (!row) return null;
      return { ...toTask(row), history: this.st.history.all(id).map(toHistory) };
    });
  }

  /**
   * A read of tasks and the inbox's view in one snapshot: between two separate statements
   * another process could move a task from one to the other, and it would be in neither.
   */
  private readAsOne<R>(waiting: string | null, read: () => R): R {
    return waiting === null || this.db.inTransaction ? read() : this.db.transaction(read).deferred();
  }

  listTasks(q: ListQuery): TaskPage {
    const waiting = this.takeInWaiting();
    const from = waiting === null ? 'tasks' : `(SELECT * FROM main.tasks UNION ALL SELECT * FROM ${waiting})`;
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (q.status && q.status.length > 0) {
      where.push(`status IN (${q.status.map(() => '?').join(', ')})`);
      params.push(...q.status);
      // Always true of finished tasks; said, it lets the planner read the partial tasks_ended in
      // finish order. Only for that sort: for others, tasks_status (status, id) serves better.
      if (q.sort === 'finishedAt' && q.status.every((st) => FINISHED.has(st)))
        where.push('finished_at IS NOT NULL');
    }
    if (q.group) {
      where.push('group_name = ?');
      params.push(q.group);
    }
    if (q.kind) {
      where.push('kind = ?');
      params.push(q.kind);
    }
    if (q.search) {
      where.push("name LIKE ? ESCAPE '\\'");
      params.push(`%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const col = SORT_COLUMNS[q.sort ?? 'createdAt'];
    const order = q.order ?? 'desc';
    const limit = q.limit ?? 100;
    const offset = q.offset ?? 0;
    return this.readAsOne(waiting, () => {
      const rows = this.db
        .prepare<(string | number)[], TaskRow>(
          `SELECT * FROM ${from} ${clause} ORDER BY ${col} ${order}, id ${order} LIMIT ? OFFSET ?`,
        )
        .all(...params, limit, offset);
      const total = this.db
        .prepare<(string | number)[], { n: number }>(`SELECT count(*) AS n FROM ${from} ${clause}`)
        .get(...params)!.n;
      return { tasks: rows.map(toTask), total };
    });
  }

  settings(): QueueSettings {
    const s = this.st.settings.get()!;
    return {
      globalConcurrency: s.global_concurrency,
      paused: s.paused === 1,
      retentionDays: s.retention_days,
      notifications: { enabled: s.notify_enabled === 1, groups: readGroupList(s.notify_groups) },
      failureWebhook: s.failure_webhook,
      durability: s.durability === 'full' ? 'full' : 'results',
    };
  }

  failedSince(after: { at: number; id: number }, limit: number): Task[] {
    return this.st.failedSince.all({ at: after.at, id: after.id, limit }).map(toTask);
  }

  stats(now: number, recentFailures: number): Stats {
    const waiting = this.takeInWaiting();
    return this.readAsOne(waiting, () => this.statsOf(waiting, now, recentFailures));
  }

  private statsOf(waiting: string | null, now: number, recentFailures: number): Stats {
    const counts = emptyCounts();
    const byGroup = new Map<string, GroupInfo>();
    for (const g of this.st.groups.all()) {
      let rateUsed = 0;
      if (g.rate_limit !== null && g.rate_period_ms !== null) {
        rateUsed = this.st.windowCount.get(g.name, now - g.rate_period_ms)!.n;
      }
      byGroup.set(g.name, toGroupInfo(g, now, rateUsed));
    }
    const counted = this.st.counts.all();
    if (waiting !== null) {
      const rows = this.db
        .prepare<[], { group_name: string; n: number }>(
          `SELECT group_name, count(*) AS n FROM ${waiting} GROUP BY group_name`,
        )
        .all();
      for (const r of rows) {
        counted.push({ group_name: r.group_name, status: 'pending', n: r.n });
        // a group first named by a waiting task has no row yet: the defaults of a new row
        if (!byGroup.has(r.group_name)) {
          byGroup.set(r.group_name, toGroupInfo({ ...NEW_GROUP, name: r.group_name }, now, 0));
        }
      }
    }
    for (const c of counted) {
      if (!(c.status in counts)) continue;
      const status = c.status as TaskStatus;
      counts[status] += c.n;
      const g = byGroup.get(c.group_name);
      if (g) g.counts[status] += c.n;
    }
    return {
      counts,
      settings: this.settings(),
      groups: [...byGroup.values()],
      recentFailures: recentFailures > 0 ? this.st.recentFailures.all(recentFailures).map(toTask) : [],
    };
  }

  metrics(now: number, windowMs: number): Metrics {
    const rows = this.st.finishedSince.all(now - windowMs);
    const summarise = (keyOf: (r: (typeof rows)[number]) => string): MetricsRow[] => {
      const buckets = new Map<string, typeof rows>();
      for (const r of rows) {
        const k = keyOf(r);
        const list = buckets.get(k) ?? [];
        list.push(r);
        buckets.set(k, list);
      }
      return [...buckets].map(([key, list]) => {
        const durations = list
          .map((r) => (r.started_at !== null ? r.finished_at - r.started_at : null))
          .filter((d): d is number => d !== null)
          .sort((a, b) => a - b);
        const done = list.filter((r) => r.status === 'done').length;
        const failed = list.filter((r) => r.status === 'failed').length;
        return {
          key,
          finished: list.length,
          done,
          failed,
          throughput: list.length / (windowMs / 1000),
          failureRate: done + failed > 0 ? failed / (done + failed) : 0,
          p50Ms: percentile(durations, 0.5),
          p95Ms: percentile(durations, 0.95),
        };
      });
    };
    return { windowMs, byKind: summarise((r) => r.kind), byGroup: summarise((r) => r.group_name) };
  }

  dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

type DoneFinish = Extract<Finish, { status: 'done' }>;
type FailedFinish = Exclude<Finish, { status: 'done' }>;
/** Most successful ends written by one statement, and about the most text (UTF-16 units) in it. */
const DONE_CHUNK = 512;
const DONE_CHUNK_CHARS = 8 * 1024 * 1024;

interface OwnedParams {
  id: number;
  owner: string;
  attempt: number;
  now: number;
}

function prepare(db: Database.Database) {
  const p = <P extends unknown[] | object, R = unknown>(sql: string): Statement<P, R> =>
    db.prepare<P, R>(sql);
  return {
    byUnique: p<[string], TaskRow>(
      `SELECT * FROM tasks WHERE unique_key = ? AND status IN ('pending', 'running', 'retrying')`,
    ),
    get: p<[number], TaskRow>('SELECT * FROM tasks WHERE id = ?'),
    groupOf: p<[number], { group_name: string }>('SELECT group_name FROM tasks WHERE id = ?'),
    history: p<[number], HistoryRow>('SELECT * FROM history WHERE task_id = ? ORDER BY id'),
    // @list is a JSON array of [task id, attempt, result JSON text or null]. The unary + keeps the
    // planner on one rowid lookup per entry: offered the status index, it scanned every running
    // task for each.
    finishDoneMany: p<{ now: number; list: string; owner: string }, { id: number }>(
      `UPDATE tasks SET status = 'done', finished_at = @now, result = f.value ->> 2, error = NULL,
         lease_owner = NULL, lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL, progress = 1
       FROM json_each(@list) AS f
       WHERE tasks.id = f.value ->> 0 AND +tasks.status = 'running' AND +tasks.lease_owner = @owner
         AND +tasks.attempts = f.value ->> 1
       RETURNING tasks.id`,
    ),
    // @list is a JSON array of [history id, output or null].
    closeDoneMany: p<{ now: number; list: string }>(
      `UPDATE history SET ended_at = @now, outcome = 'done', error = NULL, output = f.value ->> 1
       FROM json_each(@list) AS f WHERE history.id = f.value ->> 0`,
    ),
    // A Retry-After reschedule gives its attempt back (attempts - 1) and counts itself instead.
    finishFailed: p<
      OwnedParams & { status: string; error: string; runAt: number | null; retryAfter: number }
    >(
      `UPDATE tasks SET status = @status, error = @error,
         run_at = coalesce(@runAt, run_at),
         finished_at = CASE WHEN @status = 'retrying' THEN NULL ELSE @now END,
         attempts = attempts - @retryAfter, retry_after_count = retry_after_count + @retryAfter,
         lease_owner = NULL, lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL,
         cancel_requested = 0
       WHERE id = @id AND status = 'running' AND lease_owner = @owner AND attempts = @attempt`,
    ),
    closeAttempt: p<[number, string, string | null, string | null, number]>(
      'UPDATE history SET ended_at = ?, outcome = ?, error = ?, output = ? WHERE id = ?',
    ),
    closeRunningAttempts: p<[number, string, string, number]>(
      `UPDATE history SET ended_at = ?, outcome = ?, error = ?
       WHERE task_id = ? AND type = 'attempt' AND outcome = 'running'`,
    ),
    blockGroup: p<[number, string]>(
      'UPDATE groups SET blocked_until = max(coalesce(blocked_until, 0), ?) WHERE name = ?',
    ),
    renew: p<[number, string]>(
      "UPDATE tasks SET lease_expires_at = ? WHERE lease_owner = ? AND status = 'running'",
    ),
    ownedBy: p<[string], { id: number; cancel_requested: number }>(
      "SELECT id, cancel_requested FROM tasks WHERE lease_owner = ? AND status = 'running'",
    ),
    runningOwners: p<
      [],
      {
        lease_owner: string | null;
        owner_pid: number | null;
        owner_host: string | null;
        latest: number | null;
      }
    >(
      `SELECT lease_owner, owner_pid, owner_host, max(lease_expires_at) AS latest
       FROM tasks WHERE status = 'running' GROUP BY lease_owner, owner_pid, owner_host`,
    ),
    latestLease: p<[string], { latest: number | null }>(
      "SELECT max(lease_expires_at) AS latest FROM tasks WHERE status = 'running' AND lease_owner = ?",
    ),
    reservers: p<[], { reserved_for: string; reserved_pid: number | null; reserved_host: string | null }>(
      `SELECT DISTINCT reserved_for, reserved_pid, reserved_host FROM tasks INDEXED BY tasks_claimable_reserved
       WHERE reserved_for IS NOT NULL AND status IN ('pending', 'retrying')`,
    ),
    cancelOrphans: p<{ now: number; why: string; owner: string }, { id: number }>(
      `UPDATE tasks SET status = 'cancelled', finished_at = @now, error = @why
       WHERE reserved_for = @owner AND status IN ('pending', 'retrying') RETURNING id`,
    ),
    runningOf: p<[string], TaskRow>("SELECT * FROM tasks WHERE status = 'running' AND lease_owner = ?"),
    requeueLost: p<{ to: string; why: string; now: number; id: number }>(
      `UPDATE tasks SET status = @to, error = @why, run_at = @now,
         finished_at = CASE WHEN @to = 'pending' THEN NULL ELSE @now END,
         lease_owner = NULL, lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL, cancel_requested = 0
       WHERE id = @id AND status = 'running'`,
    ),
    release: p<[number, number, string]>(
      `UPDATE tasks SET status = 'pending', attempts = attempts - 1, run_at = ?, lease_owner = NULL,
         lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL
       WHERE id = ? AND status = 'running' AND lease_owner = ?`,
    ),
    progress: p<[number, number, string]>(
      "UPDATE tasks SET progress = ? WHERE id = ? AND status = 'running' AND lease_owner = ?",
    ),
    retry: p<[number, number]>(
      `UPDATE tasks SET status = 'pending', attempts = 0, retry_after_count = 0, run_at = ?,
         finished_at = NULL, cancel_requested = 0,
         reserved_for = NULL, reserved_pid = NULL, reserved_host = NULL -- any worker may run a retry
       WHERE id = ? AND status IN ('failed', 'cancelled', 'retrying')`,
    ),
    failedIds: p<{ group: string | null; kind: string | null }, { id: number }>(
      `SELECT id FROM tasks WHERE status = 'failed' AND (@group IS NULL OR group_name = @group)
       AND (@kind IS NULL OR kind = @kind) ORDER BY id`,
    ),
    action: p<[number, number, number, number, string, string | null]>(
      `INSERT INTO history (task_id, type, attempt, started_at, ended_at, outcome, error)
       VALUES (?, 'action', ?, ?, ?, ?, ?)`,
    ),
    cancelWaiting: p<[number, number]>(
      `UPDATE tasks SET status = 'cancelled', finished_at = ?, error = 'cancelled by the user'
       WHERE id = ? AND status IN ('pending', 'retrying')`,
    ),
    requestCancel: p<[number]>("UPDATE tasks SET cancel_requested = 1 WHERE id = ? AND status = 'running'"),
    deleteHistory: p<[number]>('DELETE FROM history WHERE task_id = ?'),
    deleteTask: p<[number]>('DELETE FROM tasks WHERE id = ?'),
    setPriority: p<[number, number], TaskRow>('UPDATE tasks SET priority = ? WHERE id = ? RETURNING *'),
    ensureGroup: p<[string]>('INSERT OR IGNORE INTO groups (name) VALUES (?)'),
    groupConcurrency: p<[number | null, string]>('UPDATE groups SET concurrency = ? WHERE name = ?'),
    groupRate: p<[number | null, number | null, string]>(
      'UPDATE groups SET rate_limit = ?, rate_period_ms = ? WHERE name = ?',
    ),
    clearStarts: p<[string]>('DELETE FROM group_starts WHERE group_name = ?'),
    groupPaused: p<[number, string]>('UPDATE groups SET paused = ? WHERE name = ?'),
    setGlobal: p<[number]>('UPDATE settings SET global_concurrency = ? WHERE id = 1'),
    setPaused: p<[number]>('UPDATE settings SET paused = ? WHERE id = 1'),
    setRetention: p<[number]>('UPDATE settings SET retention_days = ? WHERE id = 1'),
    setNotifyEnabled: p<[number]>('UPDATE settings SET notify_enabled = ? WHERE id = 1'),
    setNotifyGroups: p<[string | null]>('UPDATE settings SET notify_groups = ? WHERE id = 1'),
    setWebhook: p<[string | null]>('UPDATE settings SET failure_webhook = ? WHERE id = 1'),
    setDurability: p<[string]>('UPDATE settings SET durability = ? WHERE id = 1'),
    purgeHistory: p<[number]>(
      `DELETE FROM history WHERE task_id IN (SELECT id FROM tasks INDEXED BY tasks_ended
       WHERE status IN ('done', 'failed', 'cancelled') AND finished_at IS NOT NULL AND finished_at < ?)`,
    ),
    purgeTasks: p<[number]>(
      `DELETE FROM tasks WHERE id IN (SELECT id FROM tasks INDEXED BY tasks_ended
       WHERE status IN ('done', 'failed', 'cancelled') AND finished_at IS NOT NULL AND finished_at < ?)`,
    ),
    settings: p<
      [],
      {
        global_concurrency: number;
        paused: number;
        retention_days: number;
        notify_enabled: number;
        notify_groups: string | null;
        failure_webhook: string | null;
        durability: string;
      }
    >(
      `SELECT global_concurrency, paused, retention_days, notify_enabled, notify_groups, failure_webhook,
         durability
       FROM settings WHERE id = 1`,
    ),
    groups: p<[], GroupRow>('SELECT * FROM groups ORDER BY name'),
    windowCount: p<[string, number], { n: number }>(
      'SELECT count(*) AS n FROM group_starts WHERE group_name = ? AND started_at > ?',
    ),
    counts: p<[], { group_name: string; status: string; n: number }>(
      'SELECT group_name, status, n FROM counts',
    ),
    failedSince: p<{ at: number; id: number; limit: number }, TaskRow>(
      `SELECT * FROM tasks INDEXED BY tasks_ended
       WHERE status = 'failed' AND finished_at IS NOT NULL AND finished_at >= @at
         AND (finished_at > @at OR id > @id)
       ORDER BY finished_at, id LIMIT @limit`,
    ),
    recentFailures: p<[number], TaskRow>(
      `SELECT * FROM tasks INDEXED BY tasks_ended WHERE status = 'failed' AND finished_at IS NOT NULL
       ORDER BY finished_at DESC, id DESC LIMIT ?`,
    ),
    finishedSince: p<
      [number],
      { kind: string; group_name: string; status: string; started_at: number | null; finished_at: number }
    >(
      `SELECT kind, group_name, status, started_at, finished_at FROM tasks INDEXED BY tasks_ended
       WHERE status IN ('done', 'failed') AND finished_at IS NOT NULL AND finished_at >= ?`,
    ),
  };
}
