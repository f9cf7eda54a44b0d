/**
 * How many failed tasks each failure group holds in the whole queue, for "Retry all N" when the
 * Failures screen loaded only the newest. The server reads every failed task's error for it, so
 * it refreshes at most every 5 s on changes, or ten times as long as the last answer took (an
 * open screen keeps the server busy a tenth of the time at most), and only while `enabled`.
 */
import { useState } from 'react';
import { useQuery } from './use-query.ts';

export function useCauseCounts(enabled: boolean): ReadonlyMap<string, number> | undefined {
  const [costMs, setCostMs] = useState(0);
  const q = useQuery(
    async (api) => {
      const started = performance.now();
      const counts = await api.failureCounts({});
      setCostMs(performance.now() - started);
      return new Map(counts.map((c) => [c.cause, c.count]));
    },
    [],
    { enabled, minIntervalMs: Math.max(5000, 10 * costMs), refreshMs: Math.max(30_000, 10 * costMs) },
  );
  return enabled ? q.data : undefined;
}
