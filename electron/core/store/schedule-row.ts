/**
 * A row of `schedules`, with its last task's status and times joined, as every backend reads it
 * (same column names on each), the StoredSchedule made of it, and the task it enqueues. A backend
 * checks the row's types first; the policies, the template and the flags are read here once.
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
import { usesProblem } from '../../../shared/resources.ts';
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

const pick = <T extends string>(list: readonly T[], v: string, fallback: T): T =>
  (list as readonly string[]).includes(v) ? (v as T) : fallback;

/** A template's uses as stored (the spec's shape); a damaged list throws, as a damaged template. */
function storedUses(v: unknown): { uses?: ResourceUse[] } {
  if (v === undefined || (Array.isArray(v) && v.length === 0)) return {};
  const problem = Array.isArray(v) ? usesProblem(v as ResourceUse[]) : 'not a list';
  if (problem !== null) throw new Error(`the stored task template's uses are damaged: ${problem}`);
  return { uses: v as ResourceUse[] };
}

/** The template as stored; a damaged one throws (the scheduler reports it, and parks the schedule). */
function readTemplate(text: string): TaskTemplate {
  try {
    const t = JSON.parse(text) as Partial<TaskTemplate> | null;
    if (t && typeof t === 'object' && typeof t.kind === 'string' && typeof t.group === 'string') {
      return {
        kind: t.kind,
        name: typeof t.name === 'string' ? t.name : null,
        group: t.group,
        priority: typeof t.priority === 'number' ? t.priority : 5,
        maxAttempts: typeof t.maxAttempts === 'number' ? t.maxAttempts : 3,
        timeout: typeof t.timeout === 'number' ? t.timeout : null,
        payload: (t.payload ?? {}) as JsonValue,
        ...storedUses(t.uses),
      };
    }
  } catch {
    // fall through
  }
  throw new Error('the stored task template is damaged');
}

export function toSchedule(r: ScheduleRow): StoredSchedule {
  return {
    id: r.id,
    name: r.name,
    cron: r.cron,
    timezone: r.timezone,
    everyMs: r.every_ms,
    task: readTemplate(r.template),
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
  };
}

/** The task a schedule enqueues for `dueAt` (null: a run now, outside the due times). */
export function scheduledTask(s: StoredSchedule, dueAt: number | null, now: number): NewTask {
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
