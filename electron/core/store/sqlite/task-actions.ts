/**
 * What an operator does to tasks: retry, cancel, delete, reprioritise, and retention's purge.
 * Which tasks each may touch is the policy's (policy/task-rules.ts); each action on a task is
 * recorded in its history.
 */
import type { Database, Statement } from 'better-sqlite3';
import { ACTIVE_STATUSES, FINISHED_STATUSES, type Task, type TaskStatus } from '../../../../shared/domain.ts';
import { ConflictError, NotFoundError } from '../../../../shared/errors.ts';
import type { BulkAction, TaskFilter } from '../../../../shared/task-filter.ts';
import { BULK_STATUSES, pickBulk, type BulkCandidate } from '../../policy/bulk-rules.ts';
import type { BulkOptions, BulkOutcome } from '../task-store.ts';
import { filterSql } from './task-filter-sql.ts';
import {
  CANCELLED_BY_USER,
  CANCEL_NOW_STATUSES,
  RETRYABLE_STATUSES,
  cancelVerdict,
  heldKeyRefusal,
  removeRefusal,
  retryVerdict,
} from '../../policy/task-rules.ts';
import type { Commits } from './commits.ts';
import { sqlList } from './sql.ts';
import { toTask, type TaskRow } from './task-columns.ts';
import { prepareOnUse } from './lazy-statement.ts';

/**
 * The row's status for the policy; a status this version does not know (a hand edit) is passed
 * as is: it is on no edge of the transitions, so every rule refuses it.
 */
const statusOf = (row: TaskRow): TaskStatus => row.status as TaskStatus;

export class TaskActions {
  private readonly db: Database;
  private readonly commits: Commits;
  private readonly get: Statement<[number], TaskRow>;
  private readonly action: Statement<[number, number, number, number, string, string | null]>;
  private readonly retryOne: Statement<[number, number]>;
  private readonly keyHolder: Statement<[string, number], { id: number }>;
  private readonly cancelWaiting: Statement<[number, number]>;
  private readonly requestCancel: Statement<[number]>;
  private readonly deleteHistory: Statement<[number]>;
  private readonly deleteTask: Statement<[number]>;
  private readonly setPriorityOf: Statement<[number, number], TaskRow>;
  private readonly purgeHistory: Statement<[number]>;
  private readonly purgeTasks: Statement<[number]>;

  constructor(db: Database, commits: Commits) {
    this.db = db;
    this.commits = commits;
    this.get = prepareOnUse(db, 'SELECT * FROM tasks WHERE id = ?');
    this.action = prepareOnUse(
      db,
      `INSERT INTO history (task_id, type, attempt, started_at, ended_at, outcome, error)
       VALUES (?, 'action', ?, ?, ?, ?, ?)`,
    );
    this.retryOne = prepareOnUse(
      db,
      `UPDATE tasks SET status = 'pending', attempts = 0, retry_after_count = 0, run_at = ?,
         finished_at = NULL, cancel_requested = 0,
         reserved_for = NULL, reserved_pid = NULL, reserved_host = NULL -- any worker may run a retry
       WHERE id = ? AND status IN (${sqlList(RETRYABLE_STATUSES)})`,
    );
    this.keyHolder = prepareOnUse(
      db,
      `SELECT id FROM tasks WHERE unique_key = ? AND id != ? AND status IN (${sqlList(ACTIVE_STATUSES)})`,
    );
    this.cancelWaiting = prepareOnUse(
      db,
      `UPDATE tasks SET status = 'cancelled', finished_at = ?, error = '${CANCELLED_BY_USER}'
       WHERE id = ? AND status IN (${sqlList(CANCEL_NOW_STATUSES)})`,
    );
    this.requestCancel = prepareOnUse(
      db,
      "UPDATE tasks SET cancel_requested = 1 WHERE id = ? AND status = 'running'",
    );
    this.deleteHistory = prepareOnUse(db, 'DELETE FROM history WHERE task_id = ?');
    this.deleteTask = prepareOnUse(db, 'DELETE FROM tasks WHERE id = ?');
    this.setPriorityOf = prepareOnUse(db, 'UPDATE tasks SET priority = ? WHERE id = ? RETURNING *');
    const ended = `SELECT id FROM tasks INDEXED BY tasks_ended
       WHERE status IN (${sqlList(FINISHED_STATUSES)}) AND finished_at IS NOT NULL AND finished_at < ?`;
    this.purgeHistory = prepareOnUse(db, `DELETE FROM history WHERE task_id IN (${ended})`);
    this.purgeTasks = prepareOnUse(db, `DELETE FROM tasks WHERE id IN (${ended})`);
  }

  private row(id: number): TaskRow {
    const row = this.get.get(id);
    if (!row) throw new NotFoundError(`task ${id} does not exist`);
    return row;
  }

  /**
   * The unfinished task other than `id` that holds its unique key, or null: a key is held only
   * while its task is unfinished, so a task whose key was taken meanwhile cannot come back.
   */
  private holderOf(id: number, key: string): number | null {
    return this.keyHolder.get(key, id)?.id ?? null;
  }

  retry(ids: readonly number[], now: number): number[] {
    return this.commits.run('durable', () => {
      const out: number[] = [];
      for (const id of ids) {
        const row = this.row(id);
        const verdict = retryVerdict(id, statusOf(row));
        if (verdict.action === 'skip') continue;
        if (verdict.action === 'refuse') throw new ConflictError(verdict.reason);
        if (row.unique_key !== null) {
          const holder = this.holderOf(id, row.unique_key);
          if (holder !== null) throw new ConflictError(heldKeyRefusal(id, row.unique_key, holder));
        }
        this.retryOne.run(now, id);
        this.action.run(id, row.attempts, now, now, 'retried', null);
        out.push(id);
      }
      return out;
    });
  }

  /**
   * An action by filter (policy/bulk-rules.ts picks the tasks). A dry run also moves waiting
   * enqueues in (as every write does), so it counts them, and writes nothing more.
   */
  actOnMatching(action: BulkAction, filter: TaskFilter, now: number, opts: BulkOptions): BulkOutcome {
    return this.commits.run(opts.dryRun ? 'relaxed' : 'durable', () => {
      const { where, params } = filterSql(filter);
      where.push(`status IN (${sqlList(BULK_STATUSES[action])})`);
      if (opts.throughId !== undefined) {
        where.push('id <= ?');
        params.push(opts.throughId);
      }
      const rows = this.db
        .prepare<(string | number)[], BulkCandidate>(
          `SELECT id, status, attempts, kind, error, unique_key FROM tasks t WHERE ${where.join(' AND ')} ORDER BY id`,
        )
        .all(...params);
      const pick = pickBulk(action, rows, {
        cause: filter.cause,
        max: opts.max,
        keyHolder: (r) => (r.unique_key === null ? null : this.holderOf(r.id, r.unique_key)),
      });
      const out = { ids: pick.act.map((r) => r.id), requested: pick.stop.map((r) => r.id) };
      if (opts.dryRun) return out;
      for (const r of pick.act) {
        if (action === 'retry') {
          this.retryOne.run(now, r.id);
          this.action.run(r.id, r.attempts, now, now, 'retried', null);
        } else if (action === 'cancel') {
          this.cancelWaiting.run(now, r.id);
          this.action.run(r.id, r.attempts, now, now, 'cancelled', CANCELLED_BY_USER);
        } else {
          this.deleteHistory.run(r.id);
          this.deleteTask.run(r.id);
        }
      }
      for (const r of pick.stop) this.requestCancel.run(r.id);
      return out;
    });
  }

  cancel(ids: readonly number[], now: number): { cancelled: number[]; requested: number[] } {
    return this.commits.run('durable', () => {
      const cancelled: number[] = [];
      const requested: number[] = [];
      for (const id of ids) {
        const row = this.row(id);
        const verdict = cancelVerdict(statusOf(row));
        if (verdict.action === 'cancel') {
          this.cancelWaiting.run(now, id);
          this.action.run(id, row.attempts, now, now, 'cancelled', CANCELLED_BY_USER);
          cancelled.push(id);
        } else if (verdict.action === 'request-stop') {
          this.requestCancel.run(id);
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
        const row = this.get.get(id);
        if (!row) continue;
        const refusal = removeRefusal(id, statusOf(row));
        if (refusal !== null) throw new ConflictError(refusal);
        this.deleteHistory.run(id);
        this.deleteTask.run(id);
        out.push(id);
      }
      return out;
    });
  }

  setPriority(id: number, priority: number, now: number): Task {
    return this.commits.run('durable', () => {
      const row = this.setPriorityOf.get(priority, id);
      if (!row) throw new NotFoundError(`task ${id} does not exist`);
      this.action.run(id, row.attempts, now, now, 'priority', `priority set to ${priority}`);
      return toTask(row);
    });
  }

  purgeFinished(before: number): number {
    return this.commits.run('durable', () => {
      this.purgeHistory.run(before);
      return this.purgeTasks.run(before).changes;
    });
  }
}
