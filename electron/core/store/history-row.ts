/**
 * A row of `history` as every backend stores it (same column names on each), and the
 * HistoryEntry the faces see. A backend checks the row's types first where its driver does not.
 */
import type { HistoryEntry, HistoryOutcome } from '../../../shared/domain.ts';

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
  paused_ms: number | null;
}

export function historyEntry(r: HistoryRow): HistoryEntry {
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
    pausedMs: r.paused_ms,
  };
}
