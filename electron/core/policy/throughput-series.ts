/**
 * The Overview's charts over the last hour, day or week, from the finished counts per bucket
 * (and per group) that one store read gives (`finishedSeries`, newest bucket first). Pure:
 * throughput and the failure rate of each bucket, oldest first, as the chart draws them.
 */
import type { SeriesLine, SeriesRange, ThroughputSeries } from '../../../shared/domain.ts';
import type { FinishedBucket } from '../store/task-store.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Bucket size and count per range: a dozen to a few dozen points, each read in one query. */
export const SERIES_SHAPES: Record<SeriesRange, { bucketMs: number; count: number; per: 'minute' | 'hour' }> =
  {
    '1h': { bucketMs: 5 * MINUTE, count: 12, per: 'minute' },
    '24h': { bucketMs: HOUR, count: 24, per: 'hour' },
    '7d': { bucketMs: 6 * HOUR, count: 28, per: 'hour' },
  };

type Counts = { done: number; failed: number };

function lineOf(countsAt: (k: number) => Counts, count: number, perBucket: number): SeriesLine {
  const rate: number[] = [];
  const failurePercent: (number | null)[] = [];
  let finished = 0;
  let failedAll = 0;
  // Walk from the oldest bucket to the newest.
  for (let k = count - 1; k >= 0; k--) {
    const { done, failed } = countsAt(k);
    rate.push((done + failed) / perBucket);
    failurePercent.push(done + failed > 0 ? (100 * failed) / (done + failed) : null);
    finished += done + failed;
    failedAll += failed;
  }
  return { rate, failurePercent, finished, failed: failedAll };
}

/** `buckets[k]`: what finished in the k-th bucket before `now` (0 the newest). */
export function seriesFrom(
  buckets: readonly FinishedBucket[],
  now: number,
  range: SeriesRange = '1h',
): ThroughputSeries {
  const { bucketMs, count, per } = SERIES_SHAPES[range];
  const perBucket = bucketMs / (per === 'minute' ? MINUTE : HOUR);
  const none: Counts = { done: 0, failed: 0 };
  const times = Array.from({ length: count }, (_, i) =>
    Math.round((now - (count - 1 - i) * bucketMs) / 1000),
  );
  const names = new Set(buckets.flatMap((b) => [...b.groups.keys()]));
  const groups = [...names]
    .map((group) => ({
      group,
      ...lineOf((k) => buckets[k]?.groups.get(group) ?? none, count, perBucket),
    }))
    .sort((a, b) => b.finished - a.finished || a.group.localeCompare(b.group));
  return {
    range,
    bucketMs,
    per,
    times,
    ...lineOf((k) => buckets[k] ?? none, count, perBucket),
    groups,
  };
}
