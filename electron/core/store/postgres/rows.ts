/**
 * Rows of `tasks` and `history` as the PostgreSQL store reads them, decoded into the domain
 * types. A row is input from outside (another version, a hand edit, a migration), so each column
 * is checked here once (../column-types.ts): a wrong type fails with the table, the row's id and
 * the column; an unknown status or unreadable JSON is shown in place, as the SQLite store does,
 * rather than crashing a face.
 */
import {
  TASK_STATUSES,
  type HistoryEntry,
  type JsonValue,
  type Task,
  type TaskStatus,
} from '../../../../shared/domain.ts';
import { historyEntry, type HistoryRow } from '../history-row.ts';
import { decodeUses } from '../resource-row.ts';
import { FLAG, INT, TEXT, TIME, orNull, rowChecker } from '../column-types.ts';

/** A row of `tasks` as the connection layer returns it (bigint as number, flags as boolean). */
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
  cancel_requested: boolean;
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

/** A checked row of `tasks`. */
export const taskRow = rowChecker<TaskRow>('tasks', {
  id: INT,
  kind: TEXT,
  name: TEXT,
  group_name: TEXT,
  priority: INT,
  payload: TEXT,
  status: TEXT,
  attempts: INT,
  max_attempts: INT,
  retry_after_count: INT,
  run_at: TIME,
  timeout_ms: orNull(INT),
  unique_key: orNull(TEXT),
  lease_owner: orNull(TEXT),
  lease_expires_at: orNull(TIME),
  owner_pid: orNull(INT),
  owner_host: orNull(TEXT),
  cancel_requested: FLAG,
  progress: orNull(TIME),
  created_at: TIME,
  started_at: orNull(TIME),
  finished_at: orNull(TIME),
  error: orNull(TEXT),
  result: orNull(TEXT),
  reserved_for: orNull(TEXT),
  reserved_pid: orNull(INT),
  reserved_host: orNull(TEXT),
  schedule_id: orNull(INT),
  scheduled_for: orNull(TIME),
  uses: orNull(TEXT),
  resource_waits: INT,
});

const historyRow = rowChecker<HistoryRow>('history', {
  id: INT,
  task_id: INT,
  type: TEXT,
  attempt: INT,
  started_at: TIME,
  ended_at: orNull(TIME),
  outcome: TEXT,
  error: orNull(TEXT),
  output: orNull(TEXT),
  worker: orNull(TEXT),
  paused_ms: orNull(INT),
});

const STATUS_SET = new Set<string>(TASK_STATUSES);

/** Unreadable JSON is shown in place, not allowed to crash a face. */
function readJson(text: string | null, what: string): JsonValue | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return { unreadable: what, text: text.slice(0, 200) };
  }
}

/** A row of `tasks` as the Task the faces see. */
export function toTask(row: object): Task {
  const r = taskRow(row);
  const known = STATUS_SET.has(r.status);
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    group: r.group_name,
    priority: r.priority,
    payload: readJson(r.payload, 'payload') ?? {},
    // An unknown status (a hand edit) shows as failed, with the reason as its error.
    status: known ? (r.status as TaskStatus) : 'failed',
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    retryAfterCount: r.retry_after_count,
    runAt: r.run_at,
    timeout: r.timeout_ms,
    unique: r.unique_key,
    leaseOwner: r.lease_owner,
    leaseExpiresAt: r.lease_expires_at,
    cancelRequested: r.cancel_requested,
    progress: r.progress,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    error: known ? r.error : `unknown status in database: ${r.status}`,
    result: readJson(r.result, 'result'),
    reservedFor: r.reserved_for,
    scheduleId: r.schedule_id,
    uses: decodeUses(r.uses),
  };
}

/** A row of `history` as a HistoryEntry, its types checked first. */
export function toHistory(row: object): HistoryEntry {
  return historyEntry(historyRow(row));
}
