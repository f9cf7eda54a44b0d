/**
 * Enqueue: a batch goes in as one INSERT over arrays (one round trip however many tasks), its
 * groups with it. A unique key is held only while its task is unfinished, and a schedule's due
 * time is unique too: both are kept by partial unique indexes, so two processes enqueueing the
 * same key at once cannot both win. A task whose key is held gets the holder back (created:
 * false), as the SQLite store does, whether the holder was there before or came earlier in the
 * same batch.
 */
import { ACTIVE_STATUSES } from '../../../../shared/domain.ts';
import { encodeUses } from '../resource-row.ts';
import type { EnqueueResult, NewTask } from '../task-store.ts';
import type { Queryable } from './db.ts';
import { atMs, untilMs } from './pg-clock.ts';
import { pgText, pgTextOrNull } from './pg-text.ts';
import { toTask } from './rows.ts';

const ACTIVE = ACTIVE_STATUSES.map((s) => `'${s}'`).join(', ');

/** Columns written from the new task, with their array types for unnest. */
const COLUMNS: readonly [column: string, type: string, value: (t: NewTask) => unknown][] = [
  ['kind', 'text', (t) => t.kind],
  ['name', 'text', (t) => t.name],
  ['group_name', 'text', (t) => t.group],
  ['priority', 'bigint', (t) => t.priority],
  ['payload', 'text', (t) => t.payload],
  ['max_attempts', 'bigint', (t) => t.maxAttempts],
  ['run_at', 'bigint', (t) => untilMs(t.runAt)],
  ['timeout_ms', 'bigint', (t) => t.timeout],
  ['unique_key', 'text', (t) => t.unique],
  ['reserved_for', 'text', (t) => t.reservedFor?.id ?? null],
  ['reserved_pid', 'bigint', (t) => t.reservedFor?.pid ?? null],
  ['reserved_host', 'text', (t) => t.reservedFor?.host ?? null],
  ['schedule_id', 'bigint', (t) => t.schedule?.id ?? null],
  ['scheduled_for', 'bigint', (t) => t.schedule?.dueAt ?? null],
  ['uses', 'text', (t) => encodeUses(t.uses)],
];

// ORDER BY the input's position: identity ids are handed out in it, so ids follow the batch.
// DO NOTHING without a target covers both unique indexes (a violation would abort the whole
// transaction); who holds a skipped key is looked up afterwards.
const INSERT = `INSERT INTO tasks (${COLUMNS.map((c) => c[0]).join(', ')}, status, created_at)
  SELECT ${COLUMNS.map((c) => c[0]).join(', ')}, 'pending', $${COLUMNS.length + 1}::bigint
  FROM unnest(${COLUMNS.map((c, i) => `$${i + 1}::${c[1]}[]`).join(', ')})
    WITH ORDINALITY AS n(${COLUMNS.map((c) => c[0]).join(', ')}, ord)
  ORDER BY ord
  ON CONFLICT DO NOTHING
  RETURNING *`;

/** What makes a task conflict with another: its unique key and its schedule due time. */
function keyOf(t: {
  unique_key?: string | null;
  schedule_id?: number | null;
  scheduled_for?: number | null;
}): string | null {
  const u = t.unique_key ?? null;
  // a run-now (no due time) is unique by nothing: NULLs never conflict in a unique index
  const due = t.schedule_id == null || t.scheduled_for == null ? null : [t.schedule_id, t.scheduled_for];
  if (u === null && due === null) return null;
  return JSON.stringify([u, due]);
}

const newKey = (t: NewTask) =>
  keyOf({
    unique_key: t.unique,
    schedule_id: t.schedule?.id ?? null,
    scheduled_for: t.schedule?.dueAt ?? null,
  });

/** The task's text as the server can hold it (pg-text.ts), before keys are compared. */
function storable(t: NewTask): NewTask {
  return {
    ...t,
    kind: pgText(t.kind),
    name: pgText(t.name),
    group: pgText(t.group),
    payload: pgText(t.payload),
    unique: pgTextOrNull(t.unique),
  };
}

/** Inserts `tasks` in the caller's transaction; results in the order given. */
export async function insertTasks(
  q: Queryable,
  given: readonly NewTask[],
  now: number,
): Promise<EnqueueResult[]> {
  if (given.length === 0) return [];
  const tasks = given.map(storable);
  const out = new Array<EnqueueResult | undefined>(tasks.length);
  /** key -> index of the batch's first task holding it */
  const firstWithKey = new Map<string, number>();
  const repeats: [at: number, holder: number][] = [];
  const fresh: number[] = [];
  for (let i = 0; i < tasks.length; i++) {
    const k = newKey(tasks[i]!);
    if (k !== null) {
      const holder = firstWithKey.get(k);
      if (holder !== undefined) {
        repeats.push([i, holder]);
        continue;
      }
      firstWithKey.set(k, i);
    }
    fresh.push(i);
  }

  const groups = [...new Set(fresh.map((i) => tasks[i]!.group))].sort();
  await q.query('INSERT INTO groups (name) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT DO NOTHING', [
    groups,
  ]);

  let pending = fresh;
  for (let round = 0; pending.length > 0; round++) {
    const batch = pending.map((i) => tasks[i]!);
    const params: unknown[] = COLUMNS.map(([, , value]) => batch.map(value));
    params.push(atMs(now));
    const rows = await q.query<{ id: number } & Record<string, unknown>>(INSERT, params);
    rows.sort((a, b) => a.id - b.id);
    const byKey = new Map<string, object>();
    const plain: object[] = [];
    for (const r of rows) {
      const k = keyOf(r as Parameters<typeof keyOf>[0]);
      if (k === null) plain.push(r);
      else byKey.set(k, r);
    }
    let p = 0;
    const skipped: number[] = [];
    for (const i of pending) {
      const k = newKey(tasks[i]!);
      const row = k === null ? plain[p++] : byKey.get(k);
      if (row !== undefined) out[i] = { task: toTask(row), created: true };
      else skipped.push(i);
    }
    pending = [];
    for (const i of skipped) {
      const holder = await holderOf(q, tasks[i]!);
      if (holder !== null) out[i] = { task: toTask(holder), created: false };
      // The holder finished between the insert and the look-up: its key is free, try again.
      else if (round < 3) pending.push(i);
      else throw new Error(`could not enqueue task ${tasks[i]!.name}: its unique key kept changing hands`);
    }
  }
  for (const [at, holder] of repeats) out[at] = { task: out[holder]!.task, created: false };
  if (fresh.length > 0) q.changed();
  return out as EnqueueResult[];
}

async function holderOf(q: Queryable, t: NewTask): Promise<object | null> {
  if (t.schedule && t.schedule.dueAt !== null) {
    const [row] = await q.query(`SELECT * FROM tasks WHERE schedule_id = $1 AND scheduled_for = $2`, [
      t.schedule.id,
      t.schedule.dueAt,
    ]);
    if (row) return row;
  }
  if (t.unique !== null) {
    const [row] = await q.query(`SELECT * FROM tasks WHERE unique_key = $1 AND status IN (${ACTIVE})`, [
      t.unique,
    ]);
    if (row) return row;
  }
  return null;
}
