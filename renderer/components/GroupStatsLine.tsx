import type { GroupStats } from '../../shared/domain.ts';
import { formatCount, humanDuration } from '../state/format.ts';
import { useNow } from '../state/use-now.ts';

/** "Oldest waiting 4 min · last hour: 12 finished, avg 1.2 s, p95 3.4 s" for one group. */
export function GroupStatsLine({ group, stats }: { group: string; stats: GroupStats | undefined }) {
  // ticks here, so the age grows without re-rendering the group's forms every second
  const now = useNow();
  // A group with no row has nothing waiting and nothing finished in the hour.
  const waiting = stats?.oldestWaitingSince ?? null;
  const finished = stats?.finished ?? 0;
  return (
    <p className="group-stats muted" aria-label={`Stats of group ${group}`}>
      <span>{waiting === null ? 'Nothing waiting' : `Oldest waiting ${humanDuration(now - waiting)}`}</span>
      {' · '}
      <span>
        {finished === 0
          ? 'nothing finished in the last hour'
          : `last hour: ${formatCount(finished)} finished` +
            (stats?.avgMs != null ? `, avg ${humanDuration(stats.avgMs)}` : '') +
            (stats?.p95Ms != null ? `, p95 ${humanDuration(stats.p95Ms)}` : '')}
      </span>
    </p>
  );
}
