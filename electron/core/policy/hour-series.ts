/**
 * The Overview's last hour in 5-minute buckets, from the finished counts per bucket that one
 * store read gives (`finishedSeries`, newest bucket first). Pure: throughput per minute and the
 * failure rate of each bucket, oldest first, as the chart draws them.
 */
import type { HourSeries } from '../../../shared/domain.ts';
import type { FinishedBucket } from '../store/task-store.ts';

export const BUCKET_MS = 5 * 60_000;
export const BUCKETS = 12;

/** `buckets[k]`: what finished in the k-th bucket before `now` (0 the newest). */
export function seriesFrom(buckets: readonly FinishedBucket[], now: number): HourSeries {
  const times: number[] = [];
  const perMinute: number[] = [];
  const failurePercent: (number | null)[] = [];
  let finished = 0;
  let failedAll = 0;
  // Walk from the oldest bucket to the newest.
  for (let k = BUCKETS - 1; k >= 0; k--) {
    const { done, failed } = buckets[k] ?? { done: 0, failed: 0 };
    times.push(Math.round((now - k * BUCKET_MS) / 1000));
    perMinute.push((done + failed) / (BUCKET_MS / 60_000));
    failurePercent.push(done + failed > 0 ? (100 * failed) / (done + failed) : null);
    finished += done + failed;
    failedAll += failed;
  }
  return { times, perMinute, failurePercent, finished, failed: failedAll };
}
