/** Throughput, failure rates and durations: the metrics windows, the charts' series, group stats. */

export interface MetricsRow {
  /** The kind or group the row describes. */
  key: string;
  finished: number;
  done: number;
  failed: number;
  /** finished tasks per second over the window */
  throughput: number;
  failureRate: number;
  /** mean duration of those that started; null when none did */
  avgMs: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface Metrics {
  windowMs: number;
  byKind: MetricsRow[];
  byGroup: MetricsRow[];
}

/** The spans the Overview's charts show: the last hour, day or week. */
export const SERIES_RANGES = ['1h', '24h', '7d'] as const;
export type SeriesRange = (typeof SERIES_RANGES)[number];

/** One line of a chart: throughput and failure rate per bucket, oldest first. */
export interface SeriesLine {
  /** tasks finished (done or failed) per `per` in each bucket */
  rate: number[];
  /** failed / (done + failed) in percent, null where nothing finished */
  failurePercent: (number | null)[];
  finished: number;
  failed: number;
}

/** The Overview's charts over a range, in total and per group (electron/core/policy/throughput-series.ts). */
export interface ThroughputSeries extends SeriesLine {
  range: SeriesRange;
  bucketMs: number;
  /** what `rate` counts per: a minute over the last hour, an hour over a day or a week */
  per: 'minute' | 'hour';
  /** bucket end times, epoch seconds (the chart's x axis) */
  times: number[];
  /** each group that finished any in the range, the most finished first */
  groups: (SeriesLine & { group: string })[];
}

/** A group's waits and durations, for the Groups screen (electron/core/policy/group-stats.ts). */
export interface GroupStats {
  group: string;
  /** pending or retrying tasks that are due */
  waiting: number;
  /** when the longest-due of them became due; null when none waits */
  oldestWaitingSince: number | null;
  /** done or failed in the last hour */
  finished: number;
  /** their mean and 95th-percentile run time; null when none of them ran */
  avgMs: number | null;
  p95Ms: number | null;
}
