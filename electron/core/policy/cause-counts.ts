/**
 * How many failed tasks each failure group holds in the whole queue, not only on the Failures
 * screen's page: the store counts per (kind, error) word for word, and this folds those counts
 * by the same key the screen groups by (shared/failure-cause.ts), so "Retry all N" can say N.
 */
import { failureCause, failureKey } from '../../../shared/failure-cause.ts';
import type { CauseCount } from '../../../shared/task-filter.ts';
import type { FailedErrorCount } from '../store/task-store.ts';

export function countByCause(rows: readonly FailedErrorCount[]): CauseCount[] {
  const counts = new Map<string, number>();
  for (const r of rows) {
    const key = failureKey(r.kind, failureCause(r.error));
    counts.set(key, (counts.get(key) ?? 0) + r.count);
  }
  return [...counts].map(([cause, count]) => ({ cause, count }));
}
