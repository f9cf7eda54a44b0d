/**
 * The Overview's last hour in 5-minute buckets, from cumulative counts: `metrics` over windows of
 * 60, 55, … 5 minutes gives the tasks that finished in each window, and consecutive differences
 * are the buckets. Pure; the engine reads the windows (largest first, at one `now`) and hands them
 * here. A task that finishes between two reads can only land in a newer bucket than its own
 * (clamped so no bucket goes negative), never in an older one; it is exact at the next refresh.
 *
 * The store contract offers aggregates per window, not finish times, so this costs one store
 * call per bucket; a bucketed store query would make it one.
 */
import type { HourSeries, Metrics } from '../../../shared/domain.ts';

export const BUCKET_MS = 5 * 60_000;
export const BUCKETS = 12;

/** The windows to read, index k covering the last (k+1) buckets. */
export const HOUR_WINDOWS: readonly number[] = Array.from({ length: BUCKETS }, (_, k) => (k + 1) * BUCKET_MS);

export function finishedTotals(m: Metrics): { done: number; failed: number } {
  let done = 0;
  let failed = 0;
  for (const row of m.byKind) {
    done += row.done;
    failed += row.failed;
  }
  return { done, failed };
}

/** `cumulative[k]` counts the last (k+1) buckets before `now`. */
export function bucketsFrom(
  cumulative: readonly { done: number; failed: number }[],
  now: number,
): HourSeries {
  const times: number[] = [];
  const perMinute: number[] = [];
  const failurePercent: (number | null)[] = [];
  let finished = 0;
  let failedAll = 0;
  // Walk from the oldest bucket to the newest.
  for (let k = BUCKETS - 1; k >= 0; k--) {
    const outer = cumulative[k]!;
    const inner = k > 0 ? cumulative[k - 1]! : { done: 0, failed: 0 };
    const done = Math.max(0, outer.done - inner.done);
    const failed = Math.max(0, outer.failed - inner.failed);
    times.push(Math.round((now - k * BUCKET_MS) / 1000));
    perMinute.push((done + failed) / (BUCKET_MS / 60_000));
    failurePercent.push(done + failed > 0 ? (100 * failed) / (done + failed) : null);
    finished += done + failed;
    failedAll += failed;
  }
  return { times, perMinute, failurePercent, finished, failed: failedAll };
}
