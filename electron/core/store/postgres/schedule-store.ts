/**
 * Schedules in a PostgreSQL queue. Firing is one transaction that locks the due schedules
 * (`FOR UPDATE SKIP LOCKED`: a second host firing at the same moment skips them instead of
 * waiting, and finds them advanced once it looks again), enqueues their tasks and advances their
 * next due time; the unique (schedule_id, scheduled_for) index is the last word, so a due time
 * already fired (a schedule set back to it, a lock taken over) never gets a second task.
 */
import { ACTIVE_STATUSES } from '../../../../shared/domain.ts';
import { ConflictError, NotFoundError } from '../../../../shared/errors.ts';
import { recurrenceOf, type DueSchedule, type FirePlan } from '../../schedule/plan.ts';
import type { FireResult, NewSchedule, ScheduleStore, StoredSchedule } from '../schedule-store.ts';
import { atMs, untilMs } from './pg-clock.ts';
import type { Db, Queryable } from './db.ts';
import { insertTasks } from './enqueue.ts';
import { scheduledTask, toSchedule } from '../schedule-row.ts';
import { keptColumnsRepaired } from '../schedule-repair.ts';

const SELECT = `SELECT s.*, t.status AS last_task_status, t.started_at AS last_task_started_at,
    t.finished_at AS last_task_finished_at
  FROM schedules s LEFT JOIN tasks t ON t.id = s.last_task_id`;

/**
 * The stored columns from $1 on: name, cron, timezone, every_ms, template, missed, overlap,
 * enabled, next_due_at, grace_ms, max_runtime_ms, min_runtime_ms.
 */
const argsOf = (s: NewSchedule): unknown[] => [
  s.name,
  s.cron,
  s.timezone,
  s.everyMs,
  JSON.stringify(s.task),
  s.missed,
  s.overlap,
  s.enabled,
  s.nextDueAt === null ? null : untilMs(s.nextDueAt),
  s.alarms.graceMs,
  s.alarms.maxRuntimeMs,
  s.alarms.minRuntimeMs,
];

async function one(q: Queryable, where: string, param: unknown): Promise<StoredSchedule | null> {
  const [row] = await q.query<object>(`${SELECT} WHERE ${where}`, [param]);
  return row ? toSchedule(row) : null;
}

async function byName(q: Queryable, name: string): Promise<StoredSchedule> {
  const s = await one(q, 's.name = $1', name);
  if (!s) throw new NotFoundError(`schedule "${name}" does not exist`);
  return s;
}

async function byId(q: Queryable, id: number): Promise<StoredSchedule> {
  const s = await one(q, 's.id = $1', id);
  if (!s) throw new Error(`schedules row ${id} is missing`);
  return s;
}

/** A name another schedule holds, as the unique index would refuse it. */
async function refuseTaken(q: Queryable, name: string, except: number): Promise<void> {
  const [row] = await q.query('SELECT 1 FROM schedules WHERE name = $1 AND id <> $2', [name, except]);
  if (row) throw new ConflictError(`schedule "${name}" already exists`);
}

const ENQUEUED = `UPDATE schedules SET last_due_at = coalesce($1, last_due_at), last_enqueued_at = $2,
  last_task_id = $3 WHERE id = $4`;

// Each fired schedule's next due time and what it dropped, and its newest task where one was
// enqueued ($6, $7 null where none), in one statement.
const ADVANCE = `UPDATE schedules SET next_due_at = a.next_due_at, skipped_missed = skipped_missed + a.missed,
    skipped_overlap = skipped_overlap + a.overlap, updated_at = $1,
    last_due_at = coalesce(a.last_due, last_due_at),
    last_enqueued_at = CASE WHEN a.last_task IS NULL THEN last_enqueued_at ELSE $1 END,
    last_task_id = coalesce(a.last_task, last_task_id)
  FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
    AS a(id, next_due_at, missed, overlap, last_due, last_task)
  WHERE schedules.id = a.id`;

const parkedOf = (s: StoredSchedule) => ({ name: s.name, problem: s.problem ?? 'it has no due time' });

/** At most this many schedules per firing: the rest are due still and fire on the next call. */
const FIRE_BATCH = 100;

export function createPgScheduleStore(db: Db): ScheduleStore {
  return {
    create: (s, now) =>
      db.tx(async (q) => {
        // ON CONFLICT: two hosts creating the same name at once get one schedule and one refusal.
        const [row] = await q.query<{ id: number }>(
          `INSERT INTO schedules (name, cron, timezone, every_ms, template, missed, overlap, enabled, next_due_at,
             grace_ms, max_runtime_ms, min_runtime_ms, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
           ON CONFLICT (name) DO NOTHING RETURNING id`,
          [...argsOf(s), atMs(now)],
        );
        if (!row) throw new ConflictError(`schedule "${s.name}" already exists`);
        q.changed();
        return byId(q, row.id);
      }),

    replace: (name, s, now) =>
      db.tx(async (q) => {
        const old = await byName(q, name);
        if (s.name !== name) await refuseTaken(q, s.name, old.id);
        await q.query(
          `UPDATE schedules SET name = $1, cron = $2, timezone = $3, every_ms = $4, template = $5, missed = $6,
             overlap = $7, enabled = $8, next_due_at = $9, grace_ms = $10, max_runtime_ms = $11,
             min_runtime_ms = $12, updated_at = $13, ${keptColumnsRepaired('postgres', '$13')} WHERE id = $14`,
          [...argsOf(s), atMs(now), old.id],
        );
        q.changed();
        return byId(q, old.id);
      }),

    get: (name) => one(db, 's.name = $1', name),

    list: async () => (await db.query<object>(`${SELECT} ORDER BY s.name COLLATE "C"`)).map(toSchedule),

    setEnabled: (name, enabled, nextDueAt, now) =>
      db.tx(async (q) => {
        const r = await byName(q, name);
        await q.query('UPDATE schedules SET enabled = $1, next_due_at = $2, updated_at = $3 WHERE id = $4', [
          enabled,
          nextDueAt === null ? null : untilMs(nextDueAt),
          atMs(now),
          r.id,
        ]);
        q.changed();
        return byId(q, r.id);
      }),

    remove: (name) =>
      db.tx(async (q) => {
        const gone = await q.query('DELETE FROM schedules WHERE name = $1 RETURNING id', [name]);
        if (gone.length > 0) q.changed();
        return gone.length === 1;
      }),

    runNow: (name, now) =>
      db.tx(async (q) => {
        const s = await byName(q, name);
        const [r] = await insertTasks(q, [{ ...scheduledTask(s, null, now), runAt: now }], now);
        if (!r) throw new Error(`schedule "${name}": its task was not enqueued`);
        await q.query(ENQUEUED, [null, atMs(now), r.task.id, s.id]);
        q.changed();
        return { taskId: r.task.id, created: r.created };
      }),

    fireDue: async (now, plan) => {
      // Most calls find nothing due: one plain read answers them, without a transaction's round
      // trips. Only a hint; the transaction decides again under its locks.
      const [due] = await db.query('SELECT 1 FROM schedules WHERE enabled AND next_due_at <= $1 LIMIT 1', [
        Math.floor(now),
      ]);
      if (!due) return { taskIds: [], schedules: 0, parked: [] };
      return db.tx((q) => fireDue(q, now, plan));
    },

    nextDue: async () => {
      const [r] = await db.query<{ name: unknown; next_due_at: unknown }>(
        `SELECT name, next_due_at FROM schedules WHERE enabled AND next_due_at IS NOT NULL
         ORDER BY next_due_at LIMIT 1`,
      );
      if (!r) return null;
      if (typeof r.name !== 'string' || !Number.isFinite(r.next_due_at))
        throw new Error(
          `schedule ${JSON.stringify(r.name)}: next_due_at is ${String(r.next_due_at)}, expected a number`,
        );
      return { name: r.name, dueAt: r.next_due_at as number };
    },
  };
}

async function fireDue(
  q: Queryable,
  now: number,
  plan: (s: DueSchedule & { id: number }, previousRunActive: boolean) => FirePlan,
): Promise<FireResult> {
  // Locked until the commit; another host's firing skips these rows rather than queue behind
  // them, and when it next looks, their next due time has moved on.
  const rows = (
    await q.query<object>(
      `${SELECT} WHERE s.enabled AND s.next_due_at <= $1 ORDER BY s.next_due_at, s.id LIMIT ${FIRE_BATCH}
       FOR UPDATE OF s SKIP LOCKED`,
      // next_due_at <= now, for whole ms: <= its floor
      [Math.floor(now)],
    )
  ).map(toSchedule);
  if (rows.length === 0) return { taskIds: [], schedules: 0, parked: [] };
  const due: { s: StoredSchedule; nextDueAt: number }[] = [];
  const damaged: StoredSchedule[] = [];
  for (const s of rows) {
    // A damaged row cannot enqueue anything; park it instead of retrying it every second.
    if (s.problem !== undefined || s.nextDueAt === null) damaged.push(s);
    else due.push({ s, nextDueAt: s.nextDueAt });
  }
  if (damaged.length > 0)
    await q.query(
      'UPDATE schedules SET enabled = false, next_due_at = NULL, updated_at = $1 WHERE id = ANY($2::bigint[])',
      [atMs(now), damaged.map((s) => s.id)],
    );
  const active = new Set(
    (
      await q.query<{ id: number }>(
        'SELECT DISTINCT schedule_id AS id FROM tasks WHERE schedule_id = ANY($1::bigint[]) AND status = ANY($2::text[])',
        [due.map((d) => d.s.id), ACTIVE_STATUSES],
      )
    ).map((r) => r.id),
  );
  const plans = due.map(({ s, nextDueAt }) =>
    plan(
      { id: s.id, recurrence: recurrenceOf(s, nextDueAt), nextDueAt, missed: s.missed, overlap: s.overlap },
      active.has(s.id),
    ),
  );
  // One insert for every task of every schedule (a catch-up may fire a schedule many times), so
  // the counts trigger takes its rows once, in (group, status) order, as an enqueue or a claim
  // does: one insert per schedule took them in schedule order, and deadlocked with those.
  const fired = due.flatMap(({ s }, i) => plans[i]!.fire.map((dueAt) => ({ s, dueAt })));
  const results = await insertTasks(
    q,
    fired.map(({ s, dueAt }) => scheduledTask(s, dueAt, now)),
    now,
  );
  // Not created: that due time already has its task (the unique (schedule, due time) index).
  const taskIds: number[] = [];
  const last = new Map<number, { dueAt: number; taskId: number }>();
  results.forEach((r, i) => {
    if (!r.created) return;
    taskIds.push(r.task.id);
    last.set(fired[i]!.s.id, { dueAt: fired[i]!.dueAt, taskId: r.task.id });
  });
  await q.query(ADVANCE, [
    atMs(now),
    due.map((d) => d.s.id),
    plans.map((p) => (p.nextDueAt === null ? null : untilMs(p.nextDueAt))),
    plans.map((p) => p.droppedMissed),
    plans.map((p) => p.skippedOverlap),
    due.map((d) => last.get(d.s.id)?.dueAt ?? null),
    due.map((d) => last.get(d.s.id)?.taskId ?? null),
  ]);
  q.changed();
  return { taskIds, schedules: rows.length, parked: damaged.map(parkedOf) };
}
