/**
 * Enqueue, and the inbox around it: tasks enter through the inbox (inbox.ts), every write
 * transaction first moves what waits there into `tasks`, and every read sees what waits too.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Statement, Transaction } from 'better-sqlite3';
import { Database } from './driver.ts';
import { ACTIVE_STATUSES } from '../../../../shared/domain.ts';
import type { EnqueueResult, NewTask } from '../task-store.ts';
import type { Commits } from './commits.ts';
import type { Inbox } from './inbox.ts';
import { newTaskRecord } from './rows.ts';
import { sqlList } from './sql.ts';
import { toTask, type TaskRow } from './task-columns.ts';
import { prepareOnUse } from './lazy-statement.ts';
import { monotonicMs } from '../../clock.ts';

/** After a move into tasks failed, the writes of the next this many ms go on without trying again. */
const MOVE_RETRY_MS = 1000;

/** Moving waiting enqueues in, for writes and for reads. */
export class Intake {
  private readonly db: BetterSqlite3.Database;
  private readonly inbox: Inbox;
  private readonly busyTimeoutMs: number;
  private readonly moveInTx: Transaction<() => void>;
  private readonly onError: (message: string) => void;
  /** monotonicMs() before which a move that failed is not tried again */
  private moveRetryAt = 0;
  /** set once the store's Commits exist (they call moveWaiting at every begin) */
  commits: Commits | null = null;

  constructor(db: BetterSqlite3.Database, inbox: Inbox, onError: (message: string) => void) {
    this.db = db;
    this.inbox = inbox;
    this.onError = onError;
    this.busyTimeoutMs = db.pragma('busy_timeout', { simple: true }) as number;
    this.moveInTx = db.transaction(() => inbox.moveAll());
  }

  /**
   * Moves the waiting enqueues in at the start of a write transaction, as a savepoint of its
   * own: a move that cannot be written (a full disk, a damaged row) must not stop the tick that
   * carries results, nor the purge that would free space. Tried again after MOVE_RETRY_MS.
   */
  moveWaiting(): void {
    if (monotonicMs() < this.moveRetryAt || !this.inbox.waiting()) return;
    try {
      this.moveInTx();
    } catch (err) {
      // SQLite may have rolled the whole transaction back (on a full disk it can): then the
      // caller's transaction is gone and must fail too, not go on statement by statement.
      if (!(err instanceof Database.SqliteError) || !this.db.inTransaction) throw err;
      this.moveRetryAt = monotonicMs() + MOVE_RETRY_MS;
      this.onError(`cannot move enqueued tasks into the queue yet (they are safe and shown): ${err.message}`);
    }
  }

  /**
   * Moves waiting enqueues in before a read, so what it shows includes them; only when some
   * wait. A file this process cannot write (read-only, a full disk) leaves them in the inbox,
   * safe for the next process that can: the read then names where to find them too (the
   * inbox's view), or null when every task is in `tasks`.
   */
  takeInWaiting(): string | null {
    if (this.db.inTransaction || !this.inbox.waiting()) return null;
    if (!this.db.readonly) {
      // A read never waits for another process's write (WAL readers do not): if one holds the
      // write lock now, the waiting tasks are read through the view and moved by the next write.
      this.db.pragma('busy_timeout = 0');
      try {
        this.commits!.run('relaxed', () => {});
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
   * A read of tasks and the inbox's view in one snapshot: between two separate statements
   * another process could move a task from one to the other, and it would be in neither.
   */
  readAsOne<R>(waiting: string | null, read: () => R): R {
    return waiting === null || this.db.inTransaction ? read() : this.db.transaction(read).deferred();
  }
}

export class Enqueue {
  private readonly inbox: Inbox;
  private readonly commits: Commits;
  private readonly byUnique: Statement<[string], TaskRow>;

  constructor(db: BetterSqlite3.Database, inbox: Inbox, commits: Commits) {
    this.inbox = inbox;
    this.commits = commits;
    this.byUnique = prepareOnUse(
      db,
      `SELECT * FROM tasks WHERE unique_key = ? AND status IN (${sqlList(ACTIVE_STATUSES)})`,
    );
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
    return rows.flat().map((t, i) => ({ task: newTaskRecord(first + i, t, now), created: true }));
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
        const held = this.byUnique.get(t.unique);
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
      const rows = this.inbox.rows(fresh);
      const first = this.inbox.add(rows, now);
      // Only these: an older row that cannot be moved now must not fail this enqueue.
      this.inbox.moveAll(first);
      const stored = rows.flat();
      for (let k = 0; k < fresh.length; k++) {
        out[freshAt[k]!] = { task: newTaskRecord(first + k, stored[k]!, now), created: true };
      }
    }
    for (const [at, holder] of repeats) out[at] = { task: out[holder]!.task, created: false };
    return out;
  }
}
