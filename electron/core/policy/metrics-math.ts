/**
 * The arithmetic of the metrics view, over the tasks that finished inside the window. Pure: a
 * store reads the rows (statuses METRIC_STATUSES, finished at or after now - windowMs) and hands
 * them here.
 */
import type { Metrics, MetricsRow, TaskStatus } from '../../../shared/domain.ts';

/** The statuses the metrics count: a cancel says nothing about how the work goes. */
export const METRIC_STATUSES = ['done', 'failed'] as const satisfies readonly TaskStatus[];

export interface FinishedTask {
  kind: string;
  group: string;
  status: string;
  startedAt: number | null;
  finishedAt: number;
}

/**
 * The value at quantile `q` (0..1) of `sorted` (ascending), nearest-rank from below; null for
 * no values.
 */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** One row per distinct `keyOf`, in order of first appearance. */
export function summarise(
  tasks: readonly FinishedTask[],
  keyOf: (t: FinishedTask) => string,
  windowMs: number,
): MetricsRow[] {
  const buckets = new Map<string, FinishedTask[]>();
  for (const t of tasks) {
    const k = keyOf(t);
    const list = buckets.get(k);
    if (list) list.push(t);
    else buckets.set(k, [t]);
  }
  return [...buckets].map(([key, list]) => {
    // A task that never started (cancelled or unreadable before its first attempt) has no duration.
    const durations = list
      .flatMap((t) => (t.startedAt !== null ? [t.finishedAt - t.startedAt] : []))
      .sort((a, b) => a - b);
    const done = list.filter((t) => t.status === 'done').length;
    const failed = list.filter((t) => t.status === 'failed').length;
    return {
      key,
      finished: list.length,
      done,
      failed,
      throughput: list.length / (windowMs / 1000),
      failureRate: done + failed > 0 ? failed / (done + failed) : 0,
      avgMs: durations.length > 0 ? durations.reduce((a, b) => a + b, 0) / durations.length : null,
      p50Ms: percentile(durations, 0.5),
      p95Ms: percentile(durations, 0.95),
    };
  });
}

/** The metrics of a window, by kind and by group. */
export function metricsOf(tasks: readonly FinishedTask[], windowMs: number): Metrics {
  return {
    windowMs,
    byKind: summarise(tasks, (t) => t.kind, windowMs),
    byGroup: summarise(tasks, (t) => t.group, windowMs),
  };
}
