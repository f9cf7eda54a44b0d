/**
 * An action by filter (PostgreSQL): the tasks the filter matches in the statuses the action can
 * touch, locked in id order (as every operator action locks, so two cannot deadlock), picked by
 * policy/bulk-rules.ts, then written as one statement per kind of change. A dry run locks nothing.
 */
import type { TaskStatus } from '../../../../shared/domain.ts';
import type { BulkAction, TaskFilter } from '../../../../shared/task-filter.ts';
import { BULK_STATUSES, pickBulk, type BulkCandidate } from '../../policy/bulk-rules.ts';
import { CANCELLED_BY_USER, CANCEL_NOW_STATUSES, RETRYABLE_STATUSES } from '../../policy/task-rules.ts';
import type { BulkOptions, BulkOutcome } from '../task-store.ts';
import type { Db, Queryable } from './db.ts';
import {
  CANCEL_NOW,
  REQUEST_STOP,
  RETRY,
  againOnKeyClash,
  deleteTasks,
  keyHolders,
  recordActions,
} from './operator-actions.ts';
import { atMs } from './pg-clock.ts';
import { INT, TEXT, orNull, rowChecker } from '../column-types.ts';
import { filterConditions, statusIn } from './task-filter-sql.ts';

const candidate = rowChecker<{
  id: number;
  status: string;
  attempts: number;
  kind: string;
  error: string | null;
  unique_key: string | null;
}>('tasks', {
  id: INT,
  status: TEXT,
  attempts: INT,
  kind: TEXT,
  error: orNull(TEXT),
  unique_key: orNull(TEXT),
});

async function matching(
  db: Db,
  q: Queryable,
  action: BulkAction,
  filter: TaskFilter,
  lock: boolean,
  throughId: number | undefined,
): Promise<BulkCandidate[]> {
  const params: unknown[] = [];
  const param = (v: unknown) => (params.push(v), `$${params.length}`);
  const f = await filterConditions(db, filter, param);
  const where = [f.status, f.group, f.kind, f.schedule, f.search].filter((c): c is string => c !== null);
  where.push(statusIn(BULK_STATUSES[action], param));
  if (throughId !== undefined) where.push(`id <= ${param(throughId)}`);
  const rows = await q.query<object>(
    `SELECT id, status, attempts, kind, error, unique_key FROM tasks WHERE ${where.join(' AND ')}
     ORDER BY id${lock ? ' FOR UPDATE' : ''}`,
    params,
  );
  return rows.map((row) => {
    const r = candidate(row);
    return { ...r, status: r.status as TaskStatus };
  });
}

export async function actOnMatching(
  db: Db,
  action: BulkAction,
  filter: TaskFilter,
  now: number,
  opts: BulkOptions,
): Promise<BulkOutcome> {
  const write = !opts.dryRun;
  const run = async (q: Queryable): Promise<BulkOutcome> => {
    const rows = await matching(db, q, action, filter, write, opts.throughId);
    const keys = await keyHolders(q, action === 'retry' ? rows : []);
    const pick = pickBulk(action, rows, { cause: filter.cause, max: opts.max, keyHolder: keys.holder });
    const ids = pick.act.map((r) => r.id);
    const requested = pick.stop.map((r) => r.id);
    if (!write || ids.length + requested.length === 0) return { ids, requested };
    if (action === 'retry') {
      await q.query(RETRY, [ids, atMs(now), RETRYABLE_STATUSES]);
      await recordActions(q, pick.act, now, 'retried', null);
    } else if (action === 'cancel') {
      if (ids.length > 0) {
        await q.query(CANCEL_NOW, [ids, atMs(now), CANCELLED_BY_USER, CANCEL_NOW_STATUSES]);
        await recordActions(q, pick.act, now, 'cancelled', CANCELLED_BY_USER);
      }
      if (requested.length > 0) await q.query(REQUEST_STOP, [requested]);
    } else await deleteTasks(q, ids);
    q.changed();
    return { ids, requested };
  };
  // A retry's unique key can change hands between the check and the write: run it again then.
  return action === 'retry' && write ? againOnKeyClash(db, run) : db.tx(run);
}
