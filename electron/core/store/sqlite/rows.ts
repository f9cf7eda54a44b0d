import {
  TASK_STATUSES,
  type HistoryEntry,
  type HistoryOutcome,
  type JsonValue,
  type Task,
  type TaskStatus,
} from '../../../../shared/domain.ts';
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
  inserted_by: number | null;
}

export interface HistoryRow {
  id: number;
  task_id: number;
  type: string;
  attempt: number;
  started_at: number;
  ended_at: number | null;
  outcome: string;
  error: string | null;
  output: string | null;
  worker: string | null;
}

const STATUS_SET = new Set<string>(TASK_STATUSES);

/**
 * The database file is input from outside too (another version, a hand edit): a row with an
 * unknown status or unreadable JSON is reported in place, not allowed to crash a face.
 */
function readJson(text: string | null, what: string): JsonValue | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return { unreadable: what, text: text.slice(0, 200) };
  }
}

export function toTask(r: TaskRow): Task {
  const status: TaskStatus = STATUS_SET.has(r.status) ? (r.status as TaskStatus) : 'failed';
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    group: r.group_name,
    priority: r.priority,
    status,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    payload: readJson(r.payload, 'payload') ?? {},
    result: readJson(r.result, 'result'),
    error: STATUS_SET.has(r.status) ? r.error : `unknown status in database: ${r.status}`,
    runAt: r.run_at,
    timeout: r.timeout_ms,
    unique: r.unique_key,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    progress: r.progress,
    leaseOwner: r.lease_owner,
    leaseExpiresAt: r.lease_expires_at,
    cancelRequested: r.cancel_requested === 1,
    retryAfterCount: r.retry_after_count,
    reservedFor: r.reserved_for,
    scheduleId: r.schedule_id ?? null,
  };
}

export function toHistory(r: HistoryRow): HistoryEntry {
  return {
    id: r.id,
    taskId: r.task_id,
    type: r.type === 'action' ? 'action' : 'attempt',
    attempt: r.attempt,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    outcome: r.outcome as HistoryOutcome,
    error: r.error,
    output: r.output,
    worker: r.worker,
  };
}

/**
 * The task a fresh pending row holds, built from what was inserted instead of read back: the
 * same values as `toTask` of that row (the column defaults are the zeros and nulls here).
 */
export function newTaskRecord(id: number, t: NewTask, now: number): Task {
  return {
    id,
    kind: t.kind,
    name: t.name,
    group: t.group,
    priority: t.priority,
    status: 'pending',
    attempts: 0,
    maxAttempts: t.maxAttempts,
    // Parsed from what is stored, not the caller's object: equal to what getTask returns, and
    // not changed by the caller mutating its own payload afterwards.
    payload: readJson(t.payload, 'payload') ?? {},
    result: null,
    error: null,
    runAt: t.runAt,
    timeout: t.timeout,
    unique: t.unique,
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    progress: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    cancelRequested: false,
    retryAfterCount: 0,
    reservedFor: t.reservedFor?.id ?? null,
    scheduleId: t.schedule?.id ?? null,
  };
}
