/**
 * What an operator does to tasks (PostgreSQL): retry, cancel, delete, reprioritise, and
 * retention's purge. Which tasks each may touch is the policy's (policy/task-rules.ts); each
 * action on a task is recorded in its history. Each call is one transaction that locks the rows
 * it decides about (in id order, so two operators cannot deadlock), so a worker finishing one
 * meanwhile cannot slip between the decision and the write.
 */
import { ACTIVE_STATUSES, FINISHED_STATUSES, type Task, type TaskStatus } from '../../../../shared/domain.ts';
import pg from 'pg';
import { ConflictError, NotFoundError } from '../../../../shared/errors.ts';
import { StorageError } from '../../errors.ts';
import {
  CANCELLED_BY_USER,
  CANCEL_NOW_STATUSES,
  RETRYABLE_STATUSES,
  cancelVerdict,
  heldKeyRefusal,
  removeRefusal,
  retryVerdict,
} from '../../policy/task-rules.ts';
import { TRANSITIONS } from '../../../../shared/transitions.ts';
import { atMs, untilMs } from './pg-clock.ts';
import type { Db, Queryable } from './db.ts';
import { eachById } from './each-by-id.ts';
import { INT, TEXT, orNull, rowChecker } from '../column-types.ts';
import { toTask } from './rows.ts';

export interface Locked {
  id: number;
  /** as stored; a status this version does not know is on no edge, so every rule refuses it */
  status: TaskStatus;
  attempts: number;
  unique_key: string | null;
}

const lockedRow = rowChecker<{ id: number; status: string; attempts: number; unique_key: string | null }>(
  'tasks',
  { id: INT, status: TEXT, attempts: INT, unique_key: orNull(TEXT) },
);

const LOCKED_COLUMNS = 'id, status, attempts, unique_key';

/** The rows of `ids` that exist, locked until the transaction ends. */
async function lock(q: Queryable, ids: readonly number[]): Promise<Map<number, Locked>> {
  const rows = await q.query<object>(
    eachById('tasks', '$1::bigint[]', 'true', 'FOR UPDATE', LOCKED_COLUMNS),
    [ids],
  );
  return new Map(
    rows.map((row) => {
      const r = lockedRow(row);
      return [r.id, { ...r, status: r.status as TaskStatus }];
    }),
  );
}

function mustExist(rows: Map<number, Locked>, id: number): Locked {
  const row = rows.get(id);
  if (!row) throw new NotFoundError(`task ${id} does not exist`);
  return row;
}

/** One action row per task, each with the attempt count the task had when it was acted on. */
export async function recordActions(
  q: Queryable,
  acted: readonly { id: number; attempts: number }[],
  now: number,
  outcome: 'retried' | 'cancelled' | 'priority',
  error: string | null,
): Promise<void> {
  if (acted.length === 0) return;
  await q.query(
    `INSERT INTO history (task_id, type, attempt, started_at, ended_at, outcome, error)
     SELECT a.id, 'action', a.attempts, $3, $3, $4, $5
     FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS a(id, attempts, n) ORDER BY a.n`,
    [acted.map((a) => a.id), acted.map((a) => a.attempts), atMs(now), outcome, error],
  );
}

/**
 * A unique key is held only while its task is unfinished: a task whose key another unfinished
 * task took meanwhile cannot come back. Returns a check that gives the holder of a candidate's key
 * (another task's id), or null, and notes the key as taken once the candidate is retried.
 */
export async function keyHolders(
  q: Queryable,
  candidates: readonly Locked[],
): Promise<{ holder(t: Locked): number | null; take(t: Locked): void }> {
  const keyed = candidates.filter((t) => t.unique_key !== null);
  const held = new Map<string, number>();
  if (keyed.length > 0) {
    const rows = await q.query<{ id: number; unique_key: string }>(
      `SELECT id, unique_key FROM tasks WHERE unique_key = ANY($1::text[]) AND status = ANY($2::text[])`,
      [keyed.map((t) => t.unique_key), ACTIVE_STATUSES],
    );
    for (const r of rows) held.set(r.unique_key, r.id);
  }
  return {
    holder: (t) => {
      const h = t.unique_key === null ? undefined : held.get(t.unique_key);
      return h === undefined || h === t.id ? null : h;
    },
    take: (t) => {
      if (t.unique_key !== null) held.set(t.unique_key, t.id);
    },
  };
}

const heldMessage = (t: Locked, holder: number) => heldKeyRefusal(t.id, t.unique_key ?? '', holder);

/** Whether `e` is the unique index of active keys refusing a write (PostgreSQL's 23505 on it). */
function isActiveKeyClash(e: unknown): boolean {
  const cause = e instanceof StorageError ? e.cause : e;
  return (
    cause instanceof pg.DatabaseError && cause.code === '23505' && cause.constraint === 'tasks_unique_active'
  );
}

const KEY_RACE_ATTEMPTS = 3;

/**
 * Runs a retry transaction again when another transaction took one of its keys between its holder
 * check and its write (a retry or an enqueue of the same key, committed meanwhile: the row locks
 * do not cover a key). The next run sees that holder and refuses or skips the task as the policy
 * says. Catching the clash covers every writer of a key; an advisory lock would have to be taken
 * by each of them (enqueue, schedules) to do the same.
 */
export async function againOnKeyClash<T>(db: Db, fn: (q: Queryable) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.tx(fn);
    } catch (e) {
      if (!isActiveKeyClash(e)) throw e;
      if (attempt === KEY_RACE_ATTEMPTS)
        throw new ConflictError('cannot retry: a unique key of these tasks kept changing hands; try again');
    }
  }
}

/** Back to pending from scratch; any worker may run a retry (a reservation is dropped). */
export const RETRY = `UPDATE tasks SET status = '${TRANSITIONS.retryByUser.to}', attempts = 0, retry_after_count = 0,
    run_at = $2, finished_at = NULL, cancel_requested = false,
    reserved_for = NULL, reserved_pid = NULL, reserved_host = NULL
  WHERE id = ANY($1::bigint[]) AND status = ANY($3::text[])`;

export async function retry(db: Db, ids: readonly number[], now: number): Promise<number[]> {
  return againOnKeyClash(db, async (q) => {
    const rows = await lock(q, ids);
    const keys = await keyHolders(q, [...rows.values()]);
    const out: { id: number; attempts: number }[] = [];
    for (const id of ids) {
      const row = mustExist(rows, id);
      const verdict = retryVerdict(id, row.status);
      if (verdict.action === 'skip') continue;
      if (verdict.action === 'refuse') throw new ConflictError(verdict.reason);
      const holder = keys.holder(row);
      if (holder !== null) throw new ConflictError(heldMessage(row, holder));
      keys.take(row);
      out.push({ id, attempts: row.attempts });
      // as it is now, for the same id named again
      rows.set(id, { ...row, status: TRANSITIONS.retryByUser.to, attempts: 0 });
    }
    if (out.length === 0) return [];
    await q.query(RETRY, [out.map((o) => o.id), atMs(now), RETRYABLE_STATUSES]);
    await recordActions(q, out, now, 'retried', null);
    q.changed();
    return out.map((o) => o.id);
  });
}

/** Ends waiting tasks as cancelled by the user: $1 ids, $2 now, $3 the error, $4 CANCEL_NOW_STATUSES. */
export const CANCEL_NOW = `UPDATE tasks SET status = '${TRANSITIONS.cancel.to}', finished_at = $2, error = $3
  WHERE id = ANY($1::bigint[]) AND status = ANY($4::text[])`;
/** Asks the workers of running tasks to stop them: they write `cancelled` once stopped. */
export const REQUEST_STOP =
  "UPDATE tasks SET cancel_requested = true WHERE id = ANY($1::bigint[]) AND status = 'running'";

export async function cancel(
  db: Db,
  ids: readonly number[],
  now: number,
): Promise<{ cancelled: number[]; requested: number[] }> {
  return db.tx(async (q) => {
    const rows = await lock(q, ids);
    const cancelled: { id: number; attempts: number }[] = [];
    const requested: number[] = [];
    for (const id of ids) {
      const row = mustExist(rows, id);
      const verdict = cancelVerdict(row.status);
      if (verdict.action === 'cancel') {
        cancelled.push({ id, attempts: row.attempts });
        rows.set(id, { ...row, status: TRANSITIONS.cancel.to });
      } else if (verdict.action === 'request-stop') {
        requested.push(id);
      }
    }
    if (cancelled.length > 0) {
      await q.query(CANCEL_NOW, [
        cancelled.map((c) => c.id),
        atMs(now),
        CANCELLED_BY_USER,
        CANCEL_NOW_STATUSES,
      ]);
      await recordActions(q, cancelled, now, 'cancelled', CANCELLED_BY_USER);
    }
    // Its worker stops the handler and writes `cancelled` itself: the slot stays taken until then.
    if (requested.length > 0) await q.query(REQUEST_STOP, [requested]);
    if (cancelled.length + requested.length > 0) q.changed();
    return { cancelled: cancelled.map((c) => c.id), requested };
  });
}

/** Deletes tasks with their history. */
export async function deleteTasks(q: Queryable, ids: readonly number[]): Promise<void> {
  await q.query('DELETE FROM history WHERE task_id = ANY($1::bigint[])', [ids]);
  await q.query('DELETE FROM tasks WHERE id = ANY($1::bigint[])', [ids]);
}

/** Deletes the tasks named (unknown ids are skipped), all or nothing: a running one refuses all. */
export async function remove(db: Db, ids: readonly number[]): Promise<number[]> {
  return db.tx(async (q) => {
    const rows = await lock(q, ids);
    const out: number[] = [];
    for (const id of ids) {
      const row = rows.get(id);
      if (!row) continue;
      const refusal = removeRefusal(id, row.status);
      if (refusal !== null) throw new ConflictError(refusal);
      rows.delete(id);
      out.push(id);
    }
    if (out.length === 0) return [];
    await deleteTasks(q, out);
    q.changed();
    return out;
  });
}

export async function setPriority(db: Db, id: number, priority: number, now: number): Promise<Task> {
  return db.tx(async (q) => {
    const [row] = await q.query<object>('UPDATE tasks SET priority = $1 WHERE id = $2 RETURNING *', [
      priority,
      id,
    ]);
    if (!row) throw new NotFoundError(`task ${id} does not exist`);
    const task = toTask(row);
    await recordActions(q, [{ id, attempts: task.attempts }], now, 'priority', `priority set to ${priority}`);
    q.changed();
    return task;
  });
}

/** Deletes the tasks that finished before `before`, with their history; how many. */
export async function purgeFinished(db: Db, before: number): Promise<number> {
  return db.tx(async (q) => {
    const [row] = await q.query<{ n: unknown }>(
      `WITH gone AS (
         DELETE FROM tasks WHERE status = ANY($1::text[]) AND finished_at IS NOT NULL AND finished_at < $2
         RETURNING id
       ), history_gone AS (
         DELETE FROM history WHERE task_id IN (SELECT id FROM gone)
       )
       SELECT count(*) AS n FROM gone`,
      // finished_at < before, for a whole number of ms: < its ceiling
      [FINISHED_STATUSES, untilMs(before)],
    );
    const n = row?.n;
    if (!Number.isSafeInteger(n)) throw new Error(`purge: the count is ${String(n)}, expected an integer`);
    if ((n as number) > 0) q.changed();
    return n as number;
  });
}
