/**
 * The one map of the `tasks` table: each column, in table order, with what an enqueue writes
 * into it and the Task property it is read into. The insert (insert-tasks.ts), the inbox's
 * stored form of a new task and its read-only view (inbox.ts), and the decoding of a row
 * (rows.ts) are all derived from it, so a new task field is: the domain type, the schema, one
 * entry here (and TaskRow), a migration. test/core/task-columns.test.ts holds them to the table.
 */
import { TASK_STATUSES, type JsonValue, type Task, type TaskStatus } from '../../../../shared/domain.ts';
import { LIMITS } from '../../../../shared/limits.ts';
import { decodeUses, encodeUses } from '../resource-row.ts';
import type { NewTask } from '../task-store.ts';

/** A row of `tasks` as better-sqlite3 returns it. */
export interface TaskRow {
  id: number;
  kind: string;
  name: string;
  group_name: string;
  priority: number;
  payload: string;
  status: string;
  attempts: number;
  max_attempts: number;
  retry_after_count: number;
  run_at: number;
  timeout_ms: number | null;
  unique_key: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  owner_pid: number | null;
  owner_host: string | null;
  cancel_requested: number;
  progress: number | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  error: string | null;
  result: string | null;
  reserved_for: string | null;
  reserved_pid: number | null;
  reserved_host: string | null;
  schedule_id: number | null;
  scheduled_for: number | null;
  uses: string | null;
  resource_waits: number;
}

export type SqlValue = string | number | null;

/** What an enqueue writes into a column. */
export type Enqueued =
  /** handed out by the inbox */
  | { readonly from: 'id' }
  /** the enqueue's time */
  | { readonly from: 'createdAt' }
  /** the same for every new task */
  | { readonly from: 'constant'; readonly value: SqlValue }
  /**
   * a field of the new task: stored in the inbox (in map order) and checked when read back,
   * as the file is input from outside; `optional` ones may be null
   */
  | {
      readonly from: 'task';
      readonly field: string;
      readonly encode: (t: NewTask) => SqlValue;
      readonly check: (v: unknown) => boolean;
      readonly optional: boolean;
    };

interface TaskColumn {
  readonly column: keyof TaskRow & string;
  readonly enqueue: Enqueued;
  /** the Task property this column is read into (absent: kept for the store's own use) */
  readonly task?: { readonly name: keyof Task; readonly decode: (r: TaskRow) => unknown };
}

const STATUS_SET = new Set<string>(TASK_STATUSES);
const isText = (v: unknown): v is string => typeof v === 'string';
const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const orNull = (check: (v: unknown) => boolean) => (v: unknown) => v === null || check(v);

/**
 * The file is input from outside too (another version, a hand edit): unreadable JSON is shown
 * in place, not allowed to crash a face.
 */
function readJson(text: string | null, what: string): JsonValue | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return { unreadable: what, text: text.slice(0, 200) };
  }
}

const as = <K extends keyof Task>(name: K, decode: (r: TaskRow) => Task[K]) => ({ name, decode });
const field = (
  name: string,
  encode: (t: NewTask) => SqlValue,
  check: (v: unknown) => boolean,
  optional = false,
): Enqueued => ({ from: 'task', field: name, encode, check: optional ? orNull(check) : check, optional });
const constant = (value: SqlValue): Enqueued => ({ from: 'constant', value });

export const TASK_COLUMNS: readonly TaskColumn[] = [
  { column: 'id', enqueue: { from: 'id' }, task: as('id', (r) => r.id) },
  { column: 'kind', enqueue: field('kind', (t) => t.kind, isText), task: as('kind', (r) => r.kind) },
  { column: 'name', enqueue: field('name', (t) => t.name, isText), task: as('name', (r) => r.name) },
  {
    column: 'group_name',
    enqueue: field('group', (t) => t.group, isText),
    task: as('group', (r) => r.group_name),
  },
  {
    column: 'priority',
    enqueue: field(
      'priority',
      (t) => t.priority,
      (v) => isInt(v) && v >= LIMITS.priority.min && v <= LIMITS.priority.max,
    ),
    task: as('priority', (r) => r.priority),
  },
  {
    column: 'payload',
    enqueue: field('payload', (t) => t.payload, isText),
    task: as('payload', (r) => readJson(r.payload, 'payload') ?? {}),
  },
  {
    column: 'status',
    enqueue: constant('pending'),
    // An unknown status (a hand edit) shows as failed, with the reason as its error.
    task: as('status', (r) => (STATUS_SET.has(r.status) ? (r.status as TaskStatus) : 'failed')),
  },
  { column: 'attempts', enqueue: constant(0), task: as('attempts', (r) => r.attempts) },
  {
    column: 'max_attempts',
    enqueue: field(
      'maxAttempts',
      (t) => t.maxAttempts,
      (v) => isInt(v) && v >= 1,
    ),
    task: as('maxAttempts', (r) => r.max_attempts),
  },
  {
    column: 'retry_after_count',
    enqueue: constant(0),
    task: as('retryAfterCount', (r) => r.retry_after_count),
  },
  { column: 'run_at', enqueue: field('runAt', (t) => t.runAt, isTime), task: as('runAt', (r) => r.run_at) },
  {
    column: 'timeout_ms',
    enqueue: field('timeout', (t) => t.timeout, isInt, true),
    task: as('timeout', (r) => r.timeout_ms),
  },
  {
    column: 'unique_key',
    enqueue: field('unique', (t) => t.unique, isText, true),
    task: as('unique', (r) => r.unique_key),
  },
  { column: 'lease_owner', enqueue: constant(null), task: as('leaseOwner', (r) => r.lease_owner) },
  {
    column: 'lease_expires_at',
    enqueue: constant(null),
    task: as('leaseExpiresAt', (r) => r.lease_expires_at),
  },
  { column: 'owner_pid', enqueue: constant(null) },
  { column: 'owner_host', enqueue: constant(null) },
  {
    column: 'cancel_requested',
    enqueue: constant(0),
    task: as('cancelRequested', (r) => r.cancel_requested === 1),
  },
  { column: 'progress', enqueue: constant(null), task: as('progress', (r) => r.progress) },
  { column: 'created_at', enqueue: { from: 'createdAt' }, task: as('createdAt', (r) => r.created_at) },
  { column: 'started_at', enqueue: constant(null), task: as('startedAt', (r) => r.started_at) },
  { column: 'finished_at', enqueue: constant(null), task: as('finishedAt', (r) => r.finished_at) },
  {
    column: 'error',
    enqueue: constant(null),
    task: as('error', (r) =>
      STATUS_SET.has(r.status) ? r.error : `unknown status in database: ${r.status}`,
    ),
  },
  { column: 'result', enqueue: constant(null), task: as('result', (r) => readJson(r.result, 'result')) },
  {
    column: 'reserved_for',
    enqueue: field('reservedFor.id', (t) => t.reservedFor?.id ?? null, isText, true),
    task: as('reservedFor', (r) => r.reserved_for),
  },
  {
    column: 'reserved_pid',
    enqueue: field('reservedFor.pid', (t) => t.reservedFor?.pid ?? null, isInt, true),
  },
  {
    column: 'reserved_host',
    enqueue: field('reservedFor.host', (t) => t.reservedFor?.host ?? null, isText, true),
  },
  {
    column: 'schedule_id',
    enqueue: field('schedule.id', (t) => t.schedule?.id ?? null, isInt, true),
    task: as('scheduleId', (r) => r.schedule_id ?? null),
  },
  {
    column: 'scheduled_for',
    enqueue: field('schedule.dueAt', (t) => t.schedule?.dueAt ?? null, isTime, true),
  },
  {
    column: 'uses',
    enqueue: field('uses', (t) => encodeUses(t.uses), isText, true),
    task: as('uses', (r) => decodeUses(r.uses)),
  },
  { column: 'resource_waits', enqueue: constant(0) },
];

type TaskField = Extract<Enqueued, { from: 'task' }>;

/** The columns taken from the new task, in map order: the layout of a stored new task. */
export const TASK_FIELDS: readonly (TaskColumn & { enqueue: TaskField })[] = TASK_COLUMNS.filter(
  (c): c is TaskColumn & { enqueue: TaskField } => c.enqueue.from === 'task',
);

/** Leading fields that are never null: a stored new task has at least these. */
export const REQUIRED_FIELDS = TASK_FIELDS.findIndex((c) => c.enqueue.optional);

/** The index of a column in a stored new task. */
export function fieldIndex(column: keyof TaskRow): number {
  const i = TASK_FIELDS.findIndex((c) => c.column === column);
  if (i < 0) throw new Error(`${column} is not taken from the new task`);
  return i;
}

/** A value as SQL text, for what every new row holds alike. */
export function sqlLiteral(v: SqlValue): string {
  if (v === null) return 'NULL';
  return typeof v === 'number' ? String(v) : `'${v.replaceAll("'", "''")}'`;
}

/**
 * A new task as stored: its fields in map order (TASK_FIELDS). Trailing nulls may be left out
 * (they read as null), so a stored task may be shorter.
 */
export type StoredTask = SqlValue[];

export function encodeFields(t: NewTask): StoredTask {
  const out = new Array<SqlValue>(TASK_FIELDS.length);
  for (let i = 0; i < TASK_FIELDS.length; i++) out[i] = TASK_FIELDS[i]!.enqueue.encode(t);
  return out;
}

/** The stored fields read back: why they are not a task, or null when they are (padded in place). */
export function checkFields(s: unknown): string | null {
  if (!Array.isArray(s) || s.length < REQUIRED_FIELDS || s.length > TASK_FIELDS.length)
    return `expected ${REQUIRED_FIELDS} to ${TASK_FIELDS.length} fields`;
  while (s.length < TASK_FIELDS.length) s.push(null);
  for (let f = 0; f < TASK_FIELDS.length; f++) {
    const { field: name, check } = TASK_FIELDS[f]!.enqueue;
    if (!check(s[f])) return `${name} is ${JSON.stringify(s[f]) ?? 'missing'}`;
  }
  return null;
}

/*
 * The two functions below run for every task enqueued or claimed. Built from the map as one
 * object literal each (one fixed shape, one call site per column), they cost what hand-written
 * ones do (a loop filling the properties one by one costs many times that; see RESULTS.md).
 */

const ROW_VALUES = TASK_COLUMNS.map((c) => {
  const e = c.enqueue;
  if (e.from === 'id') return 'id';
  if (e.from === 'createdAt') return 'createdAt';
  if (e.from === 'constant') return JSON.stringify(e.value);
  return `fields[${TASK_FIELDS.indexOf(c as (typeof TASK_FIELDS)[number])}] ?? null`;
});
const buildRow = new Function(
  'id',
  'fields',
  'createdAt',
  `return { ${TASK_COLUMNS.map((c, i) => `${c.column}: ${ROW_VALUES[i]}`).join(', ')} };`,
) as (id: number, fields: readonly SqlValue[], createdAt: number) => TaskRow;

/** The row an enqueue writes, from the stored fields. */
export function newRow(id: number, fields: readonly SqlValue[], createdAt: number): TaskRow {
  return buildRow(id, fields, createdAt);
}

const TASK_READERS = TASK_COLUMNS.flatMap((c) => (c.task ? [c.task] : []));
const buildTask = new Function(
  'r',
  'read',
  `return { ${TASK_READERS.map((t, i) => `${t.name}: read[${i}](r)`).join(', ')} };`,
) as (r: TaskRow, read: readonly ((r: TaskRow) => unknown)[]) => Task;
const DECODERS = TASK_READERS.map((t) => t.decode);

/** A row as the Task the faces see. */
export function toTask(r: TaskRow): Task {
  return buildTask(r, DECODERS);
}
