import type { Database } from 'better-sqlite3';
import { ACTIVE_STATUSES } from '../../../../shared/domain.ts';
import { ConflictError, NotFoundError } from '../../../../shared/errors.ts';
import { scheduledTask, toSchedule } from '../schedule-row.ts';
import { keptColumnsRepaired } from '../schedule-repair.ts';
import type { FireResult, NewSchedule, StoredSchedule } from '../schedule-store.ts';
import type { SyncScheduleStore } from './sync-store.ts';
import type { EnqueueResult, NewTask } from '../task-store.ts';
import type { Commits } from './commits.ts';
import { sqlList } from './sql.ts';
import { recurrenceOf, type DueSchedule, type FirePlan } from '../../schedule/plan.ts';
import { prepareOnUse } from './lazy-statement.ts';

/**
 * The stored columns in statement order: name, cron, timezone, every_ms, template, missed,
 * overlap, enabled, next_due_at, grace_ms, max_runtime_ms, min_runtime_ms.
 */
type ScheduleArgs = [
  string,
  string | null,
  string | null,
  number | null,
  string,
  string,
  string,
  number,
  number | null,
  number | null,
  number | null,
  number | null,
];

const SELECT = `SELECT s.*, t.status AS last_task_status, t.started_at AS last_task_started_at,
    t.finished_at AS last_task_finished_at
  FROM schedules s LEFT JOIN tasks t ON t.id = s.last_task_id`;

export class SqliteScheduleStore implements SyncScheduleStore {
  private readonly st;
  private readonly db: Database;
  private readonly commits: Commits;
  private readonly enqueue: (tasks: readonly NewTask[], now: number) => EnqueueResult[];

  constructor(
    db: Database,
    commits: Commits,
    enqueue: (tasks: readonly NewTask[], now: number) => EnqueueResult[],
  ) {
    this.db = db;
    this.commits = commits;
    this.enqueue = enqueue;
    const p = <P extends unknown[], R = unknown>(sql: string) => prepareOnUse<P, R>(db, sql);
    this.st = {
      insert: p<[...ScheduleArgs, number, number], { id: number }>(
        // An id is never used twice, also after the newest schedule is removed (no AUTOINCREMENT
        // here): its tasks keep their schedule_id, so a new schedule with the old id would be
        // shown their runs, act on them by filter, and skip or clash with their due times.
        `INSERT INTO schedules (id, name, cron, timezone, every_ms, template, missed, overlap, enabled, next_due_at,
           grace_ms, max_runtime_ms, min_runtime_ms, created_at, updated_at)
         VALUES (max(coalesce((SELECT max(id) FROM schedules), 0),
                     coalesce((SELECT max(schedule_id) FROM tasks WHERE schedule_id IS NOT NULL), 0)) + 1,
                 ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      ),
      replace: p<[...ScheduleArgs, number, number, number], { id: number }>(
        `UPDATE schedules SET name = ?, cron = ?, timezone = ?, every_ms = ?, template = ?, missed = ?, overlap = ?,
           enabled = ?, next_due_at = ?, grace_ms = ?, max_runtime_ms = ?, min_runtime_ms = ?, updated_at = ?,
           ${keptColumnsRepaired('sqlite', '?')}
         WHERE id = ? RETURNING id`,
      ),
      // Rows as stored: toSchedule checks each column (a hand edit can put text in any of them).
      byName: p<[string], object>(`${SELECT} WHERE s.name = ?`),
      byId: p<[number], object>(`${SELECT} WHERE s.id = ?`),
      list: p<[], object>(`${SELECT} ORDER BY s.name`),
      setEnabled: p<[number, number | null, number, number], unknown>(
        'UPDATE schedules SET enabled = ?, next_due_at = ?, updated_at = ? WHERE id = ?',
      ),
      remove: p<[string], unknown>('DELETE FROM schedules WHERE name = ?'),
      due: p<[number], object>(
        `${SELECT} WHERE s.enabled = 1 AND s.next_due_at <= ? ORDER BY s.next_due_at LIMIT 100`,
      ),
      active: p<[number], { n: number }>(
        `SELECT count(*) AS n FROM tasks WHERE schedule_id = ? AND status IN (${sqlList(ACTIVE_STATUSES)})`,
      ),
      advance: p<[number | null, number, number, number, number], unknown>(
        `UPDATE schedules SET next_due_at = ?, skipped_missed = skipped_missed + ?,
           skipped_overlap = skipped_overlap + ?, updated_at = ? WHERE id = ?`,
      ),
      enqueued: p<[number | null, number, number, number], unknown>(
        `UPDATE schedules SET last_due_at = coalesce(?, last_due_at), last_enqueued_at = ?, last_task_id = ?
         WHERE id = ?`,
      ),
      // A due time stored as text (a hand edit) is never due: the scheduler would wait NaN ms.
      nextDue: p<[], { name: string; next_due_at: number }>(
        `SELECT name, next_due_at FROM schedules WHERE enabled = 1 AND next_due_at IS NOT NULL
           AND typeof(next_due_at) IN ('integer', 'real')
         ORDER BY next_due_at LIMIT 1`,
      ),
    };
  }

  private row(name: string): StoredSchedule {
    const r = this.st.byName.get(name);
    if (!r) throw new NotFoundError(`schedule "${name}" does not exist`);
    return toSchedule(r);
  }

  private args(s: NewSchedule): ScheduleArgs {
    return [
      s.name,
      s.cron,
      s.timezone,
      s.everyMs,
      JSON.stringify(s.task),
      s.missed,
      s.overlap,
      s.enabled ? 1 : 0,
      s.nextDueAt,
      s.alarms.graceMs,
      s.alarms.maxRuntimeMs,
      s.alarms.minRuntimeMs,
    ];
  }

  create(s: NewSchedule, now: number): StoredSchedule {
    return this.commits.run('durable', () => {
      if (this.st.byName.get(s.name)) throw new ConflictError(`schedule "${s.name}" already exists`);
      const { id } = this.st.insert.get(...this.args(s), now, now)!;
      return toSchedule(this.st.byId.get(id)!);
    });
  }

  replace(name: string, s: NewSchedule, now: number): StoredSchedule {
    return this.commits.run('durable', () => {
      const old = this.row(name);
      if (s.name !== name && this.st.byName.get(s.name))
        throw new ConflictError(`schedule "${s.name}" already exists`);
      this.st.replace.run(...this.args(s), now, now, old.id);
      return toSchedule(this.st.byId.get(old.id)!);
    });
  }

  get(name: string): StoredSchedule | null {
    const r = this.st.byName.get(name);
    return r ? toSchedule(r) : null;
  }

  list(): StoredSchedule[] {
    return this.st.list.all().map(toSchedule);
  }

  setEnabled(name: string, enabled: boolean, nextDueAt: number | null, now: number): StoredSchedule {
    return this.commits.run('durable', () => {
      const r = this.row(name);
      this.st.setEnabled.run(enabled ? 1 : 0, nextDueAt, now, r.id);
      return toSchedule(this.st.byId.get(r.id)!);
    });
  }

  remove(name: string): boolean {
    return this.commits.run('durable', () => this.st.remove.run(name).changes === 1);
  }

  runNow(name: string, now: number): { taskId: number; created: boolean } {
    return this.commits.run('relaxed', () => {
      const s = this.row(name);
      const [r] = this.enqueue([{ ...scheduledTask(s, null, now), runAt: now }], now);
      this.st.enqueued.run(null, now, r!.task.id, s.id);
      return { taskId: r!.task.id, created: r!.created };
    });
  }

  fireDue(
    now: number,
    plan: (s: DueSchedule & { id: number }, previousRunActive: boolean) => FirePlan,
  ): FireResult {
    return this.commits.run('relaxed', (): FireResult => {
      const taskIds: number[] = [];
      const parked: FireResult['parked'] = [];
      const rows = this.st.due.all(now);
      for (const s of rows.map(toSchedule)) {
        if (s.problem !== undefined || s.nextDueAt === null) {
          // A damaged row cannot enqueue anything; park it instead of retrying it every second.
          this.st.setEnabled.run(0, null, now, s.id);
          parked.push({ name: s.name, problem: s.problem ?? 'it has no due time' });
          continue;
        }
        const active = this.st.active.get(s.id)!.n > 0;
        const p = plan(
          {
            id: s.id,
            recurrence: recurrenceOf(s, s.nextDueAt),
            nextDueAt: s.nextDueAt,
            missed: s.missed,
            overlap: s.overlap,
          },
          active,
        );
        this.st.advance.run(p.nextDueAt, p.droppedMissed, p.skippedOverlap, now, s.id);
        for (const dueAt of p.fire) {
          try {
            const [r] = this.enqueue([scheduledTask(s, dueAt, now)], now);
            taskIds.push(r!.task.id);
            this.st.enqueued.run(dueAt, now, r!.task.id, s.id);
          } catch (err) {
            // The unique (schedule, due time) index: this due time already has its task.
            if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw err;
          }
        }
      }
      return { taskIds, schedules: rows.length, parked };
    });
  }

  nextDue(): { name: string; dueAt: number } | null {
    const r = this.st.nextDue.get();
    return r ? { name: r.name, dueAt: r.next_due_at } : null;
  }
}
