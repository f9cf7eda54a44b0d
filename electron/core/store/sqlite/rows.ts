import type { Task } from '../../../../shared/domain.ts';
import { newRow, toTask, type StoredTask } from './task-columns.ts';

export { historyEntry as toHistory, type HistoryRow } from '../history-row.ts';

/**
 * The task a fresh pending row holds, built from what was inserted instead of read back: the
 * same value as `toTask` of that row. Its payload is parsed from what is stored, not taken from
 * the caller's object, so later changes to that object do not show.
 */
export function newTaskRecord(id: number, stored: StoredTask, now: number): Task {
  return toTask(newRow(id, stored, now));
}
