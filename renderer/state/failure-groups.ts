/**
 * The dead-letter list grouped by kind and error, so fifty tasks that failed for the same reason
 * read as one line to act on. Errors are compared by their first line with the numbers that vary
 * between runs blanked out — durations, decimals, long numbers like ids or byte counts — so
 * "exit code 2 after 1.2 s" and "… after 3.4 s" are one failure, while exit code 2 and exit code 3,
 * or HTTP 503 and 404, stay apart.
 */
import type { Task } from '../../shared/domain.ts';
import { firstLine } from './format.ts';

export interface FailureGroup {
  key: string;
  kind: string;
  /** the first line of the newest task's error, as shown */
  error: string;
  tasks: Task[];
}

export function errorSignature(error: string | null): string {
  return firstLine(error, 200)
    .replace(/\d+(\.\d+)?\s?(ms|s|sec|min|h)\b/g, '#')
    .replace(/\d+\.\d+|\d{4,}/g, '#')
    .toLowerCase();
}

/** Groups in order of their newest failure; tasks inside keep the order given (newest first). */
export function groupFailures(tasks: readonly Task[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const task of tasks) {
    const key = `${task.kind}\u0000${errorSignature(task.error)}`;
    let g = groups.get(key);
    if (!g) {
      g = { key, kind: task.kind, error: firstLine(task.error, 200) || 'no error message', tasks: [] };
      groups.set(key, g);
    }
    g.tasks.push(task);
  }
  return [...groups.values()];
}
