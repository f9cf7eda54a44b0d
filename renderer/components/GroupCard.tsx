import { learnedOf, learnedRate, learnedText } from '../../shared/adaptive-view.ts';
import { formatRate } from '../../shared/durations.ts';
import type { GroupInfo } from '../../shared/domain.ts';
import { formatCount, perPeriod, relativeTime } from '../state/format.ts';

/** "2 / 3 running, 4 of 5 per minute used" — a group's load against its limits. */
export function groupLoadText(g: GroupInfo): { running: string; rate: string } {
  const running =
    g.concurrency === null
      ? `${formatCount(g.counts.running)} running (no group limit)`
      : `${g.counts.running} / ${g.concurrency} running`;
  const learned = learnedOf(g);
  const rate = !g.rate
    ? 'no rate limit'
    : learned?.rate
      ? `adaptive, ${learnedRate(learned.rate.now, g.rate)} of ${formatRate(g.rate)}`
      : `${g.rateUsed} of ${g.rate.limit} ${perPeriod(g.rate.periodMs)} used`;
  return { running, rate };
}

export function GroupCard({ group, now }: { group: GroupInfo; now: number }) {
  const { running, rate } = groupLoadText(group);
  const waiting = group.counts.pending + group.counts.retrying;
  const blocked = group.blockedUntil !== null && group.blockedUntil > now;
  const learned = learnedOf(group);
  return (
    <article className="group-card" aria-label={`Group ${group.name}`}>
      <header>
        <h3>{group.name}</h3>
        {group.paused && (
          <span className="status tone-grey">
            <span aria-hidden="true">‖</span> paused
          </span>
        )}
      </header>
      <p>
        {running}, {rate}
      </p>
      <p className="muted">
        {formatCount(waiting)} waiting · {formatCount(group.counts.failed)} failed ·{' '}
        {formatCount(group.counts.done)} done
      </p>
      {learned?.lowered && (
        <p className="tone-amber">
          <span aria-hidden="true">↓</span> adaptive limit lowered: {learnedText(learned)}
        </p>
      )}
      {blocked && (
        <p className="tone-amber">
          <span aria-hidden="true">↻</span> slowed down by the server: starts again{' '}
          {relativeTime(group.blockedUntil!, now)}
        </p>
      )}
    </article>
  );
}
