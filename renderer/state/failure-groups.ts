/**
 * The dead-letter list grouped by cause, so fifty tasks that failed for the same reason read as
 * one line to act on: by kind, code (exit status, HTTP status) and the explaining line with what
 * varies between runs masked (shared/failure-cause.ts). Twelve curl failures to twelve URLs are
 * one group; exit 2 and exit 3, or HTTP 500 and 401, stay apart.
 */
import { failureCause, failureKey } from '../../shared/failure-cause.ts';
import type { Task } from '../../shared/domain.ts';

export interface FailureGroup {
  key: string;
  kind: string;
  /** `exit 7`, `HTTP 500`, or null */
  code: string | null;
  /** the explaining line of the newest task's error, as shown */
  error: string;
  /** the newest task's command or request, when its error names one */
  command: string | null;
  tasks: Task[];
}

/** `exit 7 · curl: (7) Failed to connect…`: the group's title. */
export function groupTitle(g: Pick<FailureGroup, 'code' | 'error'>): string {
  return g.code ? `${g.code} · ${g.error}` : g.error;
}

/** Groups in order of their newest failure; tasks inside keep the order given (newest first). */
export function groupFailures(tasks: readonly Task[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const task of tasks) {
    const cause = failureCause(task.error);
    const key = failureKey(task.kind, cause);
    let g = groups.get(key);
    if (!g) {
      g = { key, kind: task.kind, code: cause.code, error: cause.line, command: cause.command, tasks: [] };
      groups.set(key, g);
    }
    g.tasks.push(task);
  }
  return [...groups.values()];
}
