import { useState } from 'react';
import { formatCount } from '../state/format.ts';
import type { HourSeries } from '../../shared/domain.ts';
import { useQuery } from '../state/use-query.ts';
import { ErrorState } from './ErrorState.tsx';
import { HourChart } from './HourChart.tsx';
import { LoadingState } from './LoadingState.tsx';

// Shown again at once when the overview is revisited, while a fresh series loads.
let lastSeries: HourSeries | undefined;

/** Throughput and failure rate over the last hour (5-minute buckets, computed by the server). */
export function ThroughputCharts() {
  // One request and one grouped read (tens of ms on 100,000 finished tasks): on changes at most
  // every 5 s, or ten times as long as the last answer took, so an open Overview never keeps a
  // slow server busy more than a tenth of the time; every 30 s regardless.
  const [costMs, setCostMs] = useState(0);
  const q = useQuery(
    async (api) => {
      const started = performance.now();
      const series = await api.hourSeries({});
      setCostMs(performance.now() - started);
      return series;
    },
    [],
    { minIntervalMs: Math.max(5000, 10 * costMs), refreshMs: Math.max(30_000, 10 * costMs) },
  );
  if (q.data) lastSeries = q.data;
  const s = q.data ?? lastSeries;
  if (!s && q.loading) return <LoadingState label="Loading the last hour…" />;
  if (!s) return <ErrorState error={q.error!} what="the last hour's numbers" onRetry={q.reload} />;
  const pct = s.finished ? Math.round((100 * s.failed) / s.finished) : 0;
  return (
    <div className="charts">
      <HourChart
        title="Throughput (tasks finished per minute)"
        times={s.times}
        values={s.perMinute}
        unit=""
        colorVar="--amber"
        summary={`${formatCount(s.finished)} finished in the last hour`}
      />
      <HourChart
        title="Failure rate (% of finished tasks)"
        times={s.times}
        values={s.failurePercent}
        unit="%"
        max={100}
        colorVar="--red"
        summary={
          s.finished ? `${formatCount(s.failed)} failed (${pct}%)` : 'nothing finished in the last hour'
        }
      />
    </div>
  );
}
