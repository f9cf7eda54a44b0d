/**
 * `finishedSeries` from the rows both stores count in SQL, one per (bucket, group, status): the
 * buckets newest first, each with its totals and the same per group. Statuses other than done
 * and failed are left out (a store may count them; they are not finishes of a run).
 */
import type { FinishedBucket } from './task-store.ts';

export interface FinishedCountRow {
  k: number;
  group: string;
  status: string;
  n: number;
}

export function bucketsFrom(rows: Iterable<FinishedCountRow>, count: number): FinishedBucket[] {
  const out: FinishedBucket[] = Array.from({ length: count }, () => ({
    done: 0,
    failed: 0,
    groups: new Map(),
  }));
  for (const { k, group, status, n } of rows) {
    const b = out[k];
    if (!b || (status !== 'done' && status !== 'failed')) continue;
    b[status] += n;
    let g = b.groups.get(group);
    if (!g) b.groups.set(group, (g = { done: 0, failed: 0 }));
    g[status] += n;
  }
  return out;
}
