/**
 * The Groups screen's per-group stats: the `oldestWaiting` store read joined with the `byGroup`
 * rows of the last hour's metrics. Pure; groups in name order (code points, as both stores sort).
 */
import type { GroupStats, MetricsRow } from '../../../shared/domain.ts';
import type { GroupWaiting } from '../store/task-store.ts';

/** The window the durations are over. */
export const GROUP_STATS_WINDOW_MS = 3600_000;

export function groupStatsOf(waits: readonly GroupWaiting[], byGroup: readonly MetricsRow[]): GroupStats[] {
  const out = new Map<string, GroupStats>();
  const of = (group: string) => {
    let s = out.get(group);
    if (!s) {
      s = { group, waiting: 0, oldestWaitingSince: null, finished: 0, avgMs: null, p95Ms: null };
      out.set(group, s);
    }
    return s;
  };
  for (const w of waits) Object.assign(of(w.group), { waiting: w.count, oldestWaitingSince: w.dueSince });
  for (const r of byGroup) Object.assign(of(r.key), { finished: r.finished, avgMs: r.avgMs, p95Ms: r.p95Ms });
  return [...out.values()].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}
