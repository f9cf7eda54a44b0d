/**
 * Reads of tasks for the faces (PostgreSQL): one task with its history, pages of the list,
 * failures since a cursor, the overview's counts and the metrics. Each read that must be
 * consistent across tables is one statement (one snapshot, one round trip).
 */
import { listGates } from './gates.ts';
import { listResources } from './resources.ts';
import {
  FINISHED_STATUSES,
  emptyCounts,
  type Metrics,
  type Stats,
  type Task,
  type TaskPage,
  type TaskWithHistory,
  type WorkerLeases,
} from '../../../../shared/domain.ts';
import type { ListQuery } from '../../../../shared/schemas.ts';
import { METRIC_STATUSES, metricsOf } from '../../policy/metrics-math.ts';
import type { FailedErrorCount, FinishedBucket, GroupWaiting } from '../task-store.ts';
import { bucketsFrom } from '../finished-buckets.ts';
import { byOwner, LEASE_ROWS_SQL, type LeaseRow } from '../lease-holders.ts';
import type { Db } from './db.ts';
import { addCounts, readGroups, settings } from './queue-settings.ts';
import { INT, TEXT, TIME, orNull, rowChecker } from '../column-types.ts';
import { toHistory, toTask } from './rows.ts';
import { filterConditions } from './task-filter-sql.ts';

const FINISHED = new Set<string>(FINISHED_STATUSES);

/**
 * The list's sort columns, ordered as SQLite orders them: text by code point (BINARY), and a
 * missing finish time before every other in ascending order (PostgreSQL puts NULL last).
 */
const SORT_COLUMNS = {
  createdAt: { column: 'id', nullable: false },
  priority: { column: 'priority', nullable: false },
  runAt: { column: 'run_at', nullable: false },
  finishedAt: { column: 'finished_at', nullable: true },
  name: { column: 'name COLLATE "C"', nullable: false },
} as const;

export async function getTask(db: Db, id: number): Promise<TaskWithHistory | null> {
  // The task and its history in one statement, so no finish lands between the two reads.
  const [row] = await db.query<{ history: unknown }>(
    `SELECT t.*, coalesce((SELECT json_agg(h ORDER BY h.id) FROM history h WHERE h.task_id = t.id), '[]')
       AS history
     FROM tasks t WHERE t.id = $1`,
    [id],
  );
  if (!row) return null;
  const history = typeof row.history === 'string' ? (JSON.parse(row.history) as unknown) : row.history;
  if (!Array.isArray(history)) throw new Error(`tasks row ${id}: its history is not a list`);
  return { ...toTask(row), history: history.map((h: object) => toHistory(h)) };
}

export async function listTasks(db: Db, q: ListQuery): Promise<TaskPage> {
  const where: string[] = [];
  /** the same filter on `counts`, while it is one counts can answer */
  const counted: string[] = [];
  const params: unknown[] = [];
  const param = (v: unknown) => (params.push(v), `$${params.length}`);
  const f = await filterConditions(db, q, param);
  /** no task listed lacks a finish time: NULLs need no place in the order */
  let allFinished = false;
  if (f.status !== null) {
    where.push(f.status);
    counted.push(f.status);
    // Always true of finished tasks; said, it lets the planner read the partial tasks_ended.
    allFinished = (q.status ?? []).every((st) => FINISHED.has(st));
    if (q.sort === 'finishedAt' && allFinished) where.push('finished_at IS NOT NULL');
  }
  if (f.group !== null) {
    where.push(f.group);
    counted.push(f.group);
  }
  if (f.kind !== null) where.push(f.kind);
  if (f.schedule !== null) where.push(f.schedule);
  if (f.search !== null) where.push(f.search);
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const sort = SORT_COLUMNS[q.sort ?? 'createdAt'];
  const order = q.order === 'asc' ? 'ASC' : 'DESC';
  // Said only where a NULL can occur: an index (tasks_ended) serves the default order only.
  const nulls = sort.nullable && !allFinished ? (order === 'ASC' ? ' NULLS FIRST' : ' NULLS LAST') : '';
  const limit = param(q.limit ?? 100);
  const offset = param(q.offset ?? 0);
  // By status and group only, the counts (exact, kept in the same transaction as every change)
  // give the total without counting the tasks: a scan of every pending task otherwise.
  const total =
    q.kind || q.search || q.schedule !== undefined
      ? `SELECT count(*) AS total FROM tasks ${clause}`
      : `SELECT coalesce(sum(n), 0)::bigint AS total FROM counts${counted.length ? ` WHERE ${counted.join(' AND ')}` : ''}`;
  // The page and the total in one snapshot; a page past the end still carries the total.
  const rows = await db.query<{ id: unknown; total: unknown }>(
    `SELECT t.*, c.total FROM (${total}) c
     LEFT JOIN LATERAL (
       SELECT * FROM tasks ${clause}
       ORDER BY ${sort.column} ${order}${nulls}, id ${order} LIMIT ${limit} OFFSET ${offset}
     ) t ON true`,
    params,
  );
  const n = rows[0]?.total;
  if (!Number.isSafeInteger(n)) throw new Error(`tasks: the count is ${String(n)}, expected an integer`);
  return { tasks: rows.filter((r) => r.id !== null).map((r) => toTask(r)), total: n as number };
}

export async function failedSince(db: Db, after: { at: number; id: number }, limit: number): Promise<Task[]> {
  const rows = await db.query<object>(
    `SELECT * FROM tasks
     WHERE status = 'failed' AND finished_at IS NOT NULL AND finished_at >= $4
       AND (finished_at > $1 OR id > $2)
     ORDER BY finished_at, id LIMIT $3`,
    // for whole ms: > at is > its floor, >= at is >= its ceiling (a cursor may be fractional)
    [Math.floor(after.at), after.id, limit, Math.ceil(after.at)],
  );
  return rows.map((r) => toTask(r));
}

/** `clockOffset`: this host's to the database's clock, for the rate windows and cool-downs (readGroups). */
export async function stats(db: Db, now: number, recentFailures: number, clockOffset = 0): Promise<Stats> {
  // Separate statements, read at once on the pool: each is consistent in itself (the counts are
  // one table kept in the same transaction as every change), as SQLite's are read.
  const [groups, counts, queue, failures, resources, gates] = await Promise.all([
    readGroups(db, now, null, clockOffset),
    db.query<{ group_name: unknown; status: unknown; n: unknown }>(
      'SELECT group_name, status, n FROM counts',
    ),
    settings(db),
    recentFailures > 0
      ? db.query<object>(
          `SELECT * FROM tasks WHERE status = 'failed' AND finished_at IS NOT NULL
           ORDER BY finished_at DESC, id DESC LIMIT $1`,
          [recentFailures],
        )
      : Promise.resolve([]),
    listResources(db),
    listGates(db),
  ]);
  const total = { counts: emptyCounts() };
  addCounts(total, counts);
  const byName = new Map(groups.map((g) => [g.name, g]));
  for (const c of counts) {
    const g = typeof c.group_name === 'string' ? byName.get(c.group_name) : undefined;
    if (g) addCounts(g, [c]);
  }
  return {
    counts: total.counts,
    settings: queue,
    groups,
    resources,
    gates,
    recentFailures: failures.map((r) => toTask(r)),
  };
}

interface FinishedRow {
  kind: string;
  group_name: string;
  status: string;
  started_at: number | null;
  finished_at: number;
}

const finishedRow = rowChecker<FinishedRow>('tasks', {
  kind: TEXT,
  group_name: TEXT,
  status: TEXT,
  started_at: orNull(TIME),
  finished_at: TIME,
});

/** The rows in tasks_ended's order, as SQLite reads them: the metrics list keys in first appearance. */
export async function metrics(db: Db, now: number, windowMs: number): Promise<Metrics> {
  const rows = await db.query<object>(
    `SELECT kind, group_name, status, started_at, finished_at FROM tasks
     WHERE status = ANY($1::text[]) AND finished_at IS NOT NULL AND finished_at >= $2
     ORDER BY status, finished_at, id`,
    [METRIC_STATUSES, Math.ceil(now - windowMs)],
  );
  return metricsOf(
    rows.map((row) => {
      const r = finishedRow(row);
      return {
        kind: r.kind,
        group: r.group_name,
        status: r.status,
        startedAt: r.started_at,
        finishedAt: r.finished_at,
      };
    }),
    windowMs,
  );
}

/** store contract `finishedSeries`: counted in SQL per (bucket, group, status), one round trip. */
export async function finishedSeries(
  db: Db,
  now: number,
  bucketMs: number,
  count: number,
): Promise<FinishedBucket[]> {
  const rows = await db.query<{ k: unknown; group_name: unknown; status: unknown; n: unknown }>(
    `SELECT greatest(0, least($3::int - 1, floor(($2::double precision - finished_at) / $4)))::int AS k,
       group_name, status, count(*)::int AS n
     FROM tasks
     WHERE status = ANY($1::text[]) AND finished_at IS NOT NULL AND finished_at >= $5
     GROUP BY 1, 2, 3`,
    [METRIC_STATUSES, now, count, bucketMs, Math.ceil(now - count * bucketMs)],
  );
  return bucketsFrom(
    rows.map(({ k, group_name, status, n }) => {
      if (!Number.isSafeInteger(k) || !Number.isSafeInteger(n) || typeof group_name !== 'string')
        throw new Error(
          `tasks: a finished bucket reads ${String(k)}, ${String(group_name)}: ${String(n)}, expected integers and a group`,
        );
      return { k: k as number, group: group_name, status: String(status), n: n as number };
    }),
    count,
  );
}

/** store contract `failedByError`: grouped in SQL, one row per (kind, error). */
export async function failedByError(db: Db): Promise<FailedErrorCount[]> {
  const rows = await db.query<{ kind: unknown; error: unknown; n: unknown }>(
    "SELECT kind, error, count(*)::int AS n FROM tasks WHERE status = 'failed' GROUP BY kind, error",
  );
  return rows.map((r) => {
    if (
      typeof r.kind !== 'string' ||
      (r.error !== null && typeof r.error !== 'string') ||
      !Number.isSafeInteger(r.n)
    )
      throw new Error(`tasks: a failed (kind, error) count reads ${String(r.kind)}: ${String(r.n)}`);
    return { kind: r.kind, error: r.error as string | null, count: r.n as number };
  });
}

const leaseRow = rowChecker<LeaseRow>('tasks', {
  id: INT,
  name: TEXT,
  group_name: TEXT,
  kind: TEXT,
  started_at: orNull(TIME),
  lease_owner: TEXT,
  owner_host: orNull(TEXT),
  owner_pid: orNull(INT),
  lease_expires_at: orNull(TIME),
});

/** store contract `leaseHolders`: the running tasks' lease columns, grouped as SQLite groups them. */
export async function leaseHolders(db: Db): Promise<WorkerLeases[]> {
  const rows = await db.query<object>(LEASE_ROWS_SQL);
  return byOwner(rows.map(leaseRow));
}

const waitingRow = rowChecker<{ group_name: string; n: number; since: number }>(
  'tasks',
  { group_name: TEXT, n: INT, since: TIME },
  'group_name',
);

/** store contract `oldestWaiting`: grouped in SQL, one row per group with due waiting tasks. */
export async function oldestWaiting(db: Db, now: number): Promise<GroupWaiting[]> {
  const rows = await db.query<object>(
    `SELECT group_name, count(*)::int AS n, min(greatest(created_at, run_at)) AS since FROM tasks
     WHERE status IN ('pending', 'retrying') AND run_at <= $1 GROUP BY group_name
     ORDER BY group_name COLLATE "C"`,
    [Math.floor(now)],
  );
  return rows.map((row) => {
    const r = waitingRow(row);
    return { group: r.group_name, count: r.n, dueSince: r.since };
  });
}
