import { useState } from 'react';
import { formatCount } from '../state/format.ts';
import type { SeriesLine, SeriesRange, ThroughputSeries } from '../../shared/domain.ts';
import { useQuery } from '../state/use-query.ts';
import { ErrorState } from './ErrorState.tsx';
import { HourChart } from './HourChart.tsx';
import { LoadingState } from './LoadingState.tsx';

const RANGES: { range: SeriesRange; label: string; words: string }[] = [
  { range: '1h', label: '1 h', words: 'the last hour' },
  { range: '24h', label: '24 h', words: 'the last 24 hours' },
  { range: '7d', label: '7 d', words: 'the last 7 days' },
];

// Kept across visits: the range and group chosen, and the last series of each range, shown again
// at once while a fresh one loads.
const last = new Map<SeriesRange, ThroughputSeries>();
let chosen: { range: SeriesRange; group: string } = { range: '1h', group: '' };

/**
 * Throughput and failure rate over the last hour, day or week, in total or for one group: one
 * request per refresh, answered from one grouped store read (the series of every group come
 * with it, so choosing a group asks nothing more).
 */
export function ThroughputCharts() {
  const [{ range, group }, setChoice] = useState(chosen);
  const choose = (c: { range: SeriesRange; group: string }) => setChoice((chosen = c));
  // On changes at most every 5 s, or ten times as long as the last answer took, so an open
  // Overview never keeps a slow server busy more than a tenth of the time; every 30 s regardless.
  const [costMs, setCostMs] = useState(0);
  const q = useQuery(
    async (api) => {
      const started = performance.now();
      const series = await api.throughputSeries({ range });
      setCostMs(performance.now() - started);
      return series;
    },
    [range],
    { minIntervalMs: Math.max(5000, 10 * costMs), refreshMs: Math.max(30_000, 10 * costMs) },
  );
  if (q.data?.range === range) last.set(range, q.data);
  const s = last.get(range);
  const words = RANGES.find((r) => r.range === range)!.words;
  let body;
  // Just after the range changed, the query has neither data nor error for it yet: loading.
  if (!s && q.error && !q.loading)
    body = <ErrorState error={q.error} what={`the numbers of ${words}`} onRetry={q.reload} />;
  else if (!s) body = <LoadingState label={`Loading ${words}…`} />;
  else body = <Charts s={s} group={group} words={words} />;
  return (
    <div className="charts">
      <div className="chart-controls">
        <div className="range-switch" role="group" aria-label="Time range">
          {RANGES.map((r) => (
            <button
              key={r.range}
              type="button"
              aria-pressed={r.range === range}
              title={`Show ${r.words}`}
              onClick={() => choose({ range: r.range, group })}
            >
              {r.label}
            </button>
          ))}
        </div>
        <label className="chart-group">
          Group{' '}
          <select value={group} onChange={(e) => choose({ range, group: e.target.value })}>
            <option value="">All groups</option>
            {groupNames(s, group).map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        </label>
      </div>
      {body}
    </div>
  );
}

/** The groups that finished any in the range, and the chosen one even when it did not. */
function groupNames(s: ThroughputSeries | undefined, group: string): string[] {
  const names = (s?.groups ?? []).map((g) => g.group);
  if (group && !names.includes(group)) names.push(group);
  return names;
}

function Charts({ s, group, words }: { s: ThroughputSeries; group: string; words: string }) {
  const zero: SeriesLine = {
    rate: s.rate.map(() => 0),
    failurePercent: s.rate.map(() => null),
    finished: 0,
    failed: 0,
  };
  const line = group ? (s.groups.find((g) => g.group === group) ?? zero) : s;
  const where = group ? ` in ${group}` : '';
  const pct = line.finished ? Math.round((100 * line.failed) / line.finished) : 0;
  return (
    <>
      <HourChart
        title={`Throughput${where} (tasks finished per ${s.per})`}
        times={s.times}
        values={line.rate}
        unit=""
        colorVar="--amber"
        days={s.range === '7d'}
        summary={`${formatCount(line.finished)} finished${where} in ${words}`}
      />
      <HourChart
        title={`Failure rate${where} (% of finished tasks)`}
        times={s.times}
        values={line.failurePercent}
        unit="%"
        max={100}
        colorVar="--red"
        days={s.range === '7d'}
        summary={
          line.finished
            ? `${formatCount(line.failed)} failed (${pct}%)`
            : `nothing finished${where} in ${words}`
        }
      />
    </>
  );
}
