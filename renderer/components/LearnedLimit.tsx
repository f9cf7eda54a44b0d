import { useState } from 'react';
import { learnedOf, learnedRate, learnedText } from '../../shared/adaptive-view.ts';
import type { GroupInfo, LimitPoint } from '../../shared/domain.ts';
import { useApi } from '../state/api-context.tsx';
import { relativeTime } from '../state/format.ts';
import { useNotices } from '../state/notices.tsx';

const W = 220;
const H = 48;

/** The learned rate over time against its cap (the dashed top line), as a small chart. */
function LimitChart({ points, cap, label }: { points: readonly LimitPoint[]; cap: number; label: string }) {
  const rates = points.filter((p) => p.rate !== null);
  if (rates.length < 2) return null;
  const t0 = rates[0]!.at;
  const span = Math.max(1, rates[rates.length - 1]!.at - t0);
  const y = (rate: number) => H - 2 - (Math.min(cap, rate) / cap) * (H - 6);
  // a step line: the limit held until the next change
  const xy = rates.flatMap((p, i) => {
    const x = ((p.at - t0) / span) * W;
    const prev = rates[i - 1];
    return prev ? [`${x},${y(prev.rate!)}`, `${x},${y(p.rate!)}`] : [`${x},${y(p.rate!)}`];
  });
  return (
    <svg className="limit-chart" width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label}>
      <line x1="0" x2={W} y1={y(cap)} y2={y(cap)} className="limit-cap" strokeDasharray="4 3" />
      <line x1="0" x2={W} y1={H - 2} y2={H - 2} className="limit-axis" />
      <polyline points={xy.join(' ')} fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}

/** What an adaptive group learned: its effective limits, the last throttle, a history, a reset. */
export function LearnedLimit({ group, now, onReset }: { group: GroupInfo; now: number; onReset(): void }) {
  const api = useApi();
  const { notify } = useNotices();
  const [busy, setBusy] = useState(false);
  const learned = learnedOf(group);
  const a = group.adaptive;
  if (learned === null || a === null) return null;
  const forget = async () => {
    setBusy(true);
    try {
      await api.updateGroup({ name: group.name, update: { forgetLearned: true } });
      notify(`Group ${group.name} forgot what it learned: back at its caps`, 'green');
      onReset();
    } catch (err) {
      notify(`Could not reset group ${group.name}: ${(err as Error).message}`, 'red');
    } finally {
      setBusy(false);
    }
  };
  const rate = learned.rate;
  return (
    <div className="learned-limit" aria-label={`What group ${group.name} learned`}>
      <p>
        <strong>Learned:</strong> {learnedText(learned)}
        {rate && learned.lowered && ` (cap ${learnedRate(rate.cap.limit, rate.cap)})`}
      </p>
      <p className="muted">
        {a.lastThrottleAt === null
          ? 'Never throttled'
          : `Last throttled ${relativeTime(a.lastThrottleAt, now)}: ${a.lastThrottle ?? ''}`}
      </p>
      {rate && (
        <LimitChart
          points={a.history}
          cap={rate.cap.limit}
          label={`Learned rate of group ${group.name} over time, against its cap`}
        />
      )}
      {learned.lowered && (
        <button type="button" className="link" disabled={busy} onClick={forget}>
          Forget what it learned
        </button>
      )}
    </div>
  );
}
