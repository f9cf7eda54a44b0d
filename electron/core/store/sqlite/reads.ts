/**
 * Reads of tasks for the faces: one task with its history, pages of the list, failures since a
 * cursor, the overview's counts and the metrics. Each read includes the tasks still waiting in
 * the inbox (enqueue.ts), read in one snapshot with `tasks`.
 */
import { isAdaptive, type LimitPoint } from '../adaptive-row.ts';
import type { Database, Statement } from 'better-sqlite3';
import {
  FINISHED_STATUSES,
  emptyCounts,
  type GateConfig,
  type GroupInfo,
  type Metrics,
  type QueueSettings,
  type ResourceInfo,
  type Stats,
  type Task,
  type TaskPage,
  type TaskStatus,
  type TaskWithHistory,
  type WorkerLeases,
} from '../../../../shared/domain.ts';
import type { ListQuery } from '../../../../shared/schemas.ts';
import type { FailedErrorCount, FinishedBucket, GroupWaiting } from '../task-store.ts';
import { bucketsFrom, type FinishedCountRow } from '../finished-buckets.ts';
import { byOwner, LEASE_ROWS_SQL, type LeaseRow } from '../lease-holders.ts';
import { METRIC_STATUSES, metricsOf } from '../../policy/metrics-math.ts';
import type { Intake } from './enqueue.ts';
import { appliedRate, groupInfo, type StartWindow } from '../group-row.ts';
import { NEW_GROUP, type GroupRow } from './queue-settings.ts';
import { toHistory, type HistoryRow } from './rows.ts';
import { sqlList } from './sql.ts';
import { filterSql } from './task-filter-sql.ts';
import { toTask, type TaskRow } from './task-columns.ts';
import { prepareOnUse } from './lazy-statement.ts';

const FINISHED = new Set<string>(FINISHED_STATUSES);

const SORT_COLUMNS = {
  createdAt: 'id',
  priority: 'priority',
  runAt: 'run_at',
  finishedAt: 'finished_at',
  name: 'name',
} as const;

interface FinishedRow {
  kind: string;
  group_name: string;
  status: string;
  started_at: number | null;
  finished_at: number;
}

export class Reads {
  private readonly db: Database;
  private readonly intake: Intake;
  private readonly settings: () => QueueSettings;
  private readonly get: Statement<[number], TaskRow>;
  private readonly history: Statement<[number], HistoryRow>;
  private readonly groups: Statement<[], GroupRow>;
  private readonly windowCount: Statement<[string, number], { n: number; oldest: number | null }>;
  private readonly limitLog: Statement<[string], LimitPoint>;
  private readonly counts: Statement<[], { group_name: string; status: string; n: number }>;
  private readonly failedAfter: Statement<{ at: number; id: number; limit: number }, TaskRow>;
  private readonly recentFailures: Statement<[number], TaskRow>;
  private readonly finishedSince: Statement<[number], FinishedRow>;
  private readonly failedErrors: Statement<[], { kind: string; error: string | null; n: number }>;
  private readonly leaseRows: Statement<[], LeaseRow>;
  private readonly finishedBuckets: Statement<
    { now: number; bucketMs: number; count: number },
    FinishedCountRow
  >;

  private readonly resources: () => ResourceInfo[];
  private readonly gates: () => GateConfig[];

  constructor(
    db: Database,
    intake: Intake,
    settings: () => QueueSettings,
    resources: () => ResourceInfo[],
    gates: () => GateConfig[],
  ) {
    this.resources = resources;
    this.gates = gates;
    this.db = db;
    this.intake = intake;
    this.settings = settings;
    this.get = prepareOnUse(db, 'SELECT * FROM tasks WHERE id = ?');
    this.history = prepareOnUse(db, 'SELECT * FROM history WHERE task_id = ? ORDER BY id');
    this.groups = prepareOnUse(db, 'SELECT * FROM groups ORDER BY name');
    this.windowCount = prepareOnUse(
      db,
      'SELECT count(*) AS n, min(started_at) AS oldest FROM group_starts WHERE group_name = ? AND started_at > ?',
    );
    this.limitLog = prepareOnUse(
      db,
      'SELECT at, concurrency, rate FROM group_limits WHERE group_name = ? ORDER BY at',
    );
    this.counts = prepareOnUse(db, 'SELECT group_name, status, n FROM counts');
    this.failedAfter = prepareOnUse(
      db,
      `SELECT * FROM tasks INDEXED BY tasks_ended
       WHERE status = 'failed' AND finished_at IS NOT NULL AND finished_at >= @at
         AND (finished_at > @at OR id > @id)
       ORDER BY finished_at, id LIMIT @limit`,
    );
    this.recentFailures = prepareOnUse(
      db,
      `SELECT * FROM tasks INDEXED BY tasks_ended WHERE status = 'failed' AND finished_at IS NOT NULL
       ORDER BY finished_at DESC, id DESC LIMIT ?`,
    );
    this.finishedSince = prepareOnUse(
      db,
      `SELECT kind, group_name, status, started_at, finished_at FROM tasks INDEXED BY tasks_ended
       WHERE status IN (${sqlList(METRIC_STATUSES)}) AND finished_at IS NOT NULL AND finished_at >= ?`,
    );
    this.failedErrors = prepareOnUse(
      db,
      "SELECT kind, error, count(*) AS n FROM tasks WHERE status = 'failed' GROUP BY kind, error",
    );
    this.leaseRows = prepareOnUse(db, LEASE_ROWS_SQL);
    // Counted in SQL, per (bucket, group, status): the tasks' rows never leave the database. The
    // bucket is the floor of the age (CAST truncates; a negative age is clamped into 0).
    this.finishedBuckets = prepareOnUse(
      db,
      `SELECT max(0, min(@count - 1, CAST((@now - finished_at) / @bucketMs AS INTEGER))) AS k,
         group_name AS "group", status, count(*) AS n
       FROM tasks INDEXED BY tasks_ended
       WHERE status IN (${sqlList(METRIC_STATUSES)}) AND finished_at IS NOT NULL
         AND finished_at >= @now - @count * @bucketMs
       GROUP BY k, group_name, status`,
    );
  }

  failedByError(): FailedErrorCount[] {
    return this.failedErrors.all().map((r) => ({ kind: r.kind, error: r.error, count: r.n }));
  }

  finishedSeries(now: number, bucketMs: number, count: number): FinishedBucket[] {
    return bucketsFrom(this.finishedBuckets.all({ now, bucketMs, count }), count);
  }

  // Running tasks are never in the inbox (it holds new, pending ones), so `tasks` alone answers.
  leaseHolders(): WorkerLeases[] {
    return byOwner(this.leaseRows.all());
  }

  oldestWaiting(now: number): GroupWaiting[] {
    const waiting = this.intake.takeInWaiting();
    const from = waiting === null ? 'tasks' : `(SELECT * FROM main.tasks UNION ALL SELECT * FROM ${waiting})`;
    return this.intake.readAsOne(waiting, () =>
      this.db
        .prepare<[number], { group_name: string; n: number; since: number }>(
          `SELECT group_name, count(*) AS n, min(max(created_at, run_at)) AS since FROM ${from}
           WHERE status IN ('pending', 'retrying') AND run_at <= ? GROUP BY group_name ORDER BY group_name`,
        )
        .all(now)
        .map((r) => ({ group: r.group_name, count: r.n, dueSince: r.since })),
    );
  }

  getTask(id: number): TaskWithHistory | null {
    const waiting = this.intake.takeInWaiting();
    return this.intake.readAsOne(waiting, () => {
      const row =
        this.get.get(id) ??
        (waiting === null
          ? undefined
          : this.db.prepare<[number], TaskRow>(`SELECT * FROM ${waiting} WHERE id = ?`).get(id));
      if (!row) return null;
      return { ...toTask(row), history: this.history.all(id).map(toHistory) };
    });
  }

  listTasks(q: ListQuery): TaskPage {
    const waiting = this.intake.takeInWaiting();
    const from =
      waiting === null ? 'tasks t' : `(SELECT * FROM main.tasks UNION ALL SELECT * FROM ${waiting}) t`;
    const { where, params } = filterSql(q);
    // Always true of finished tasks; said, it lets the planner read the partial tasks_ended in
    // finish order. Only for that sort: for others, tasks_status (status, id) serves better.
    if (
      q.sort === 'finishedAt' &&
      q.status &&
      q.status.length > 0 &&
      q.status.every((st) => FINISHED.has(st))
    )
      where.push('finished_at IS NOT NULL');
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const col = SORT_COLUMNS[q.sort ?? 'createdAt'];
    const order = q.order ?? 'desc';
    const limit = q.limit ?? 100;
    const offset = q.offset ?? 0;
    return this.intake.readAsOne(waiting, () => {
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

  failedSince(after: { at: number; id: number }, limit: number): Task[] {
    return this.failedAfter.all({ at: after.at, id: after.id, limit }).map(toTask);
  }

  stats(now: number, recentFailures: number): Stats {
    const waiting = this.intake.takeInWaiting();
    return this.intake.readAsOne(waiting, () => this.statsOf(waiting, now, recentFailures));
  }

  private statsOf(waiting: string | null, now: number, recentFailures: number): Stats {
    const counts = emptyCounts();
    const byGroup = new Map<string, GroupInfo>();
    for (const g of this.groups.all()) {
      let window: StartWindow = { used: 0, oldest: null };
      let applied: StartWindow | undefined;
      const rate = appliedRate(g);
      if (rate !== null && g.rate_period_ms !== null) {
        const w = this.windowCount.get(g.name, now - g.rate_period_ms)!;
        window = { used: w.n, oldest: w.oldest };
        const a = this.windowCount.get(g.name, now - rate.periodMs)!;
        applied = { used: a.n, oldest: a.oldest };
      }
      const learned = isAdaptive(g) ? this.limitLog.all(g.name) : [];
      byGroup.set(g.name, groupInfo(g, { now, window, applied, learned }));
    }
    const counted = this.counts.all();
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
          byGroup.set(
            r.group_name,
            groupInfo({ ...NEW_GROUP, name: r.group_name }, { now, window: { used: 0, oldest: null } }),
          );
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
      resources: this.resources(),
      gates: this.gates(),
      recentFailures: recentFailures > 0 ? this.recentFailures.all(recentFailures).map(toTask) : [],
    };
  }

  metrics(now: number, windowMs: number): Metrics {
    const rows = this.finishedSince.all(now - windowMs).map((r) => ({
      kind: r.kind,
      group: r.group_name,
      status: r.status,
      startedAt: r.started_at,
      finishedAt: r.finished_at,
    }));
    return metricsOf(rows, windowMs);
  }
}
