/**
 * Throughput and failure rate over the last hour, in 5-minute buckets, from the server's own
 * counts: `metrics` over windows of 60, 55, … 5 minutes gives cumulative numbers of tasks that
 * finished in each window, and consecutive differences are the buckets. Every finished task counts,
 * whichever process ran it, including before this page was opened. The requests run one after
 * another, largest window first, so a task that finishes during a refresh can only land in a newer
 * bucket than its own (clamped so no bucket goes negative), never in an older one; it is exact at
 * the next refresh. Twelve small requests per refresh, so the chart refreshes at most every few
 * seconds.
 */
import type { QueueApi } from '../../shared/api.ts';
import type { Metrics } from '../../shared/domain.ts';

export const BUCKET_MS = 5 * 60_000;
export const BUCKETS = 12;

export interface HourSeries {
  /** bucket end times, epoch seconds (uPlot's x axis) */
  times: number[];
  /** tasks finished (done or failed) per minute in each bucket */
  perMinute: number[];
  /** failed / (done + failed) in percent, null where nothing finished */
  failurePercent: (number | null)[];
  finished: number;
  failed: number;
}

function totals(m: Metrics) {
  let done = 0;
  let failed = 0;
  for (const row of m.byKind) {
    done += row.done;
    failed += row.failed;
  }
  return { done, failed };
}

export function bucketsFrom(
  cumulative: readonly { done: number; failed: number }[],
  now: number,
): HourSeries {
  const times: number[] = [];
  const perMinute: number[] = [];
  const failurePercent: (number | null)[] = [];
  // cumulative[k] covers the last (k+1) buckets; walk from the oldest bucket to the newest.
  for (let k = BUCKETS - 1; k >= 0; k--) {
    const outer = cumulative[k]!;
    const inner = k > 0 ? cumulative[k - 1]! : { done: 0, failed: 0 };
    const done = Math.max(0, outer.done - inner.done);
    const failed = Math.max(0, outer.failed - inner.failed);
    times.push(Math.round((now - k * BUCKET_MS) / 1000));
    perMinute.push((done + failed) / (BUCKET_MS / 60_000));
    failurePercent.push(done + failed > 0 ? (100 * failed) / (done + failed) : null);
  }
  const all = { done: 0, failed: 0 };
  for (let k = 0; k < BUCKETS; k++) {
    const outer = cumulative[k]!;
    const inner = k > 0 ? cumulative[k - 1]! : { done: 0, failed: 0 };
    all.done += Math.max(0, outer.done - inner.done);
    all.failed += Math.max(0, outer.failed - inner.failed);
  }
  return { times, perMinute, failurePercent, finished: all.done + all.failed, failed: all.failed };
}

export async function loadHourSeries(api: QueueApi): Promise<HourSeries> {
  const now = Date.now();
  const windows = Array.from({ length: BUCKETS }, (_, k) => (k + 1) * BUCKET_MS);
  const cumulative: { done: number; failed: number }[] = [];
  for (let k = BUCKETS - 1; k >= 0; k--) cumulative[k] = totals(await api.metrics({ windowMs: windows[k]! }));
  return bucketsFrom(cumulative, now);
}
