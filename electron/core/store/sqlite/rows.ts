import type { HistoryEntry, HistoryOutcome, Task } from '../../../../shared/domain.ts';
import { newRow, toTask, type StoredTask } from './task-columns.ts';

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
 * same value as `toTask` of that row. Its payload is parsed from what is stored, not taken from
 * the caller's object, so later changes to that object do not show.
 */
export function newTaskRecord(id: number, stored: StoredTask, now: number): Task {
  return toTask(newRow(id, stored, now));
}
