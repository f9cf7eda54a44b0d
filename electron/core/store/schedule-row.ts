/**
 * A row of `schedules`, with its last task's status and times joined, as every backend reads it
 * (same column names on each), the StoredSchedule made of it, and the task it enqueues. The row
 * is read leniently: a damaged one (a hand edit, a bad restore, an older version's bug) becomes a
 * schedule with what could be read and a `problem`, so it lists beside the others instead of
 * failing every listing; it never enqueues anything (`scheduledTask` refuses it).
 */
import {
  MISSED_POLICIES,
  OVERLAP_POLICIES,
  TASK_STATUSES,
  type JsonValue,
  type TaskStatus,
  type ResourceUse,
  type TaskTemplate,
} from '../../../shared/domain.ts';
import { ConflictError } from '../../../shared/errors.ts';
import { usesProblem } from '../../../shared/resources.ts';
import { cronProblem, isTimeZone } from '../../../shared/schedule-times.ts';
import { INT, TEXT, TIME, columnType, orNull, rowReader } from './column-types.ts';
import type { StoredSchedule } from './schedule-store.ts';
import type { NewTask } from './task-store.ts';

export interface ScheduleRow {
  id: number;
  name: string;
  cron: string | null;
  timezone: string | null;
  every_ms: number | null;
  template: string;
  missed: string;
  overlap: string;
  /** a flag: boolean on PostgreSQL, 0/1 on SQLite */
  enabled: boolean | number;
  next_due_at: number | null;
  last_due_at: number | null;
  last_enqueued_at: number | null;
  last_task_id: number | null;
  skipped_overlap: number;
  skipped_missed: number;
  created_at: number;
  updated_at: number;
  grace_ms: number | null;
  max_runtime_ms: number | null;
  min_runtime_ms: number | null;
  last_task_status: string | null;
  last_task_started_at: number | null;
  last_task_finished_at: number | null;
}

const ENABLED = columnType('true or false', (v) => typeof v === 'boolean' || v === 0 || v === 1, false);

/** Each column checked by type: PostgreSQL's bigint past 2^53, or SQLite's text in an INTEGER column. */
const readRow = rowReader<ScheduleRow>({
  id: INT,
  name: TEXT,
  cron: orNull(TEXT),
  timezone: orNull(TEXT),
  every_ms: orNull(INT),
  template: TEXT,
  missed: TEXT,
  overlap: TEXT,
  enabled: ENABLED,
  next_due_at: orNull(TIME),
  last_due_at: orNull(TIME),
  last_enqueued_at: orNull(TIME),
  last_task_id: orNull(INT),
  skipped_overlap: INT,
  skipped_missed: INT,
  created_at: TIME,
  updated_at: TIME,
  grace_ms: orNull(INT),
  max_runtime_ms: orNull(INT),
  min_runtime_ms: orNull(INT),
  last_task_status: orNull(TEXT),
  last_task_started_at: orNull(TIME),
  last_task_finished_at: orNull(TIME),
});

const pick = <T extends string>(list: readonly T[], v: string, fallback: T): T =>
  (list as readonly string[]).includes(v) ? (v as T) : fallback;

/** Stands in for a template that cannot be read at all; never enqueued (the schedule has a problem). */
const UNREADABLE: TaskTemplate = {
  kind: '',
  name: null,
  group: '',
  priority: 5,
  maxAttempts: 3,
  timeout: null,
  payload: null,
};

const isUse = (u: unknown): u is ResourceUse =>
  typeof u === 'object' && u !== null && typeof (u as ResourceUse).resource === 'string';

/** A template's uses as stored (the spec's shape), or why they cannot be used. */
function storedUses(v: unknown): { uses?: ResourceUse[] } | { problem: string } {
  if (v === undefined || (Array.isArray(v) && v.length === 0)) return {};
  const problem = !Array.isArray(v)
    ? 'not a list'
    : !v.every(isUse)
      ? 'an entry is not {resource, weight}'
      : usesProblem(v);
  if (problem !== null) return { problem: `the stored task template's uses are damaged: ${problem}` };
  return { uses: v as ResourceUse[] };
}

/** The template as stored, keeping what can be read of a damaged one, and what is wrong with it. */
function readTemplate(text: string): { task: TaskTemplate; problem: string | null } {
  const damaged = (why: string) => `the stored task template is damaged: ${why}`;
  let t: unknown;
  try {
    t = JSON.parse(text);
  } catch {
    return { task: UNREADABLE, problem: damaged('not JSON') };
  }
  if (typeof t !== 'object' || t === null || Array.isArray(t))
    return { task: UNREADABLE, problem: damaged('not an object') };
  const o = t as Partial<Record<keyof TaskTemplate, unknown>>;
  const task: TaskTemplate = {
    kind: typeof o.kind === 'string' ? o.kind : '',
    name: typeof o.name === 'string' ? o.name : null,
    group: typeof o.group === 'string' ? o.group : '',
    priority: typeof o.priority === 'number' ? o.priority : 5,
    maxAttempts: typeof o.maxAttempts === 'number' ? o.maxAttempts : 3,
    timeout: typeof o.timeout === 'number' ? o.timeout : null,
    payload: (o.payload ?? {}) as JsonValue,
  };
  if (typeof o.kind !== 'string') return { task, problem: damaged('it names no kind') };
  if (typeof o.group !== 'string') return { task, problem: damaged('it names no group') };
  const uses = storedUses(o.uses);
  if ('problem' in uses) return { task, problem: uses.problem };
  return { task: { ...task, ...uses }, problem: null };
}

/** Recurrences already judged: a listing reads every schedule each second, and cron parsing is not free. */
const judged = new Map<string, string | null>();

/** Why the stored recurrence cannot give due times (firing and `upcoming` would throw), or null. */
function recurrenceProblem(r: ScheduleRow): string | null {
  if ((r.cron === null) === (r.every_ms === null))
    return r.cron === null
      ? 'neither a cron expression nor an interval is stored'
      : 'both a cron expression and an interval are stored';
  if (r.every_ms !== null) return r.every_ms > 0 ? null : `the interval ${r.every_ms} ms is not valid`;
  const key = `${r.cron}\u0000${r.timezone ?? ''}`;
  let problem = judged.get(key);
  if (problem === undefined) {
    const cron = cronProblem(r.cron!);
    problem =
      cron !== null
        ? `the cron expression "${r.cron!.slice(0, 70)}" is not valid: ${cron}`
        : r.timezone !== null && !isTimeZone(r.timezone)
          ? `the time zone "${r.timezone.slice(0, 70)}" is not known`
          : null;
    if (judged.size >= 1000) judged.clear();
    judged.set(key, problem);
  }
  return problem;
}

/** A row as read from either database; never throws: a damaged one has a `problem`. */
export function toSchedule(raw: object): StoredSchedule {
  const { row: r, problem: column } = readRow(raw);
  const { task, problem: template } = readTemplate(r.template);
  const problem = (column && `a stored column is damaged: ${column}`) ?? template ?? recurrenceProblem(r);
  return {
    id: r.id,
    name: r.name,
    cron: r.cron,
    timezone: r.timezone,
    everyMs: r.every_ms,
    task,
    missed: pick(MISSED_POLICIES, r.missed, 'skip'),
    overlap: pick(OVERLAP_POLICIES, r.overlap, 'allow'),
    enabled: r.enabled === true || r.enabled === 1,
    nextDueAt: r.next_due_at,
    lastDueAt: r.last_due_at,
    lastEnqueuedAt: r.last_enqueued_at,
    lastTaskId: r.last_task_id,
    lastTaskStatus:
      r.last_task_status === null ? null : pick<TaskStatus>(TASK_STATUSES, r.last_task_status, 'pending'),
    lastTaskStartedAt: r.last_task_started_at,
    lastTaskFinishedAt: r.last_task_finished_at,
    alarms: { graceMs: r.grace_ms, maxRuntimeMs: r.max_runtime_ms, minRuntimeMs: r.min_runtime_ms },
    skippedOverlap: r.skipped_overlap,
    skippedMissed: r.skipped_missed,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...(problem !== null && { problem }),
  };
}

/** What a damaged schedule's owner can do, as the refusals and the scheduler's log say it. */
export const DAMAGED_REMEDY = 'repair it with semaforo schedule update or in the dashboard, or remove it';

/** The one-line refusal of what a damaged schedule cannot do (`what`: "run", "be resumed"). */
export function damagedError(s: Pick<StoredSchedule, 'name' | 'problem'>, what: string): ConflictError {
  return new ConflictError(
    `schedule "${s.name}" cannot ${what}: ${s.problem ?? 'it is damaged'} (${DAMAGED_REMEDY})`,
  );
}

/** The task a schedule enqueues for `dueAt` (null: a run now, outside the due times). */
export function scheduledTask(s: StoredSchedule, dueAt: number | null, now: number): NewTask {
  // Every enqueue from a schedule passes here: a damaged one never makes a task.
  if (s.problem !== undefined) throw damagedError(s, 'run');
  const t = s.task;
  return {
    kind: t.kind,
    name: t.name ?? s.name,
    group: t.group,
    priority: t.priority,
    payload: JSON.stringify(t.payload),
    maxAttempts: t.maxAttempts,
    // A catch-up run is due now; the queue's limits still decide when it starts.
    runAt: Math.max(dueAt ?? now, 0),
    timeout: t.timeout,
    unique: null,
    ...(t.uses && { uses: t.uses }),
    schedule: { id: s.id, dueAt },
  };
}
