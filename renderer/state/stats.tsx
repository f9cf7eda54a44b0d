/** The queue's stats, fetched once for the window (rail badge, overview, groups, settings). */
import { createContext, useContext, useEffect, type ReactNode } from 'react';
import type { Stats } from '../../shared/domain.ts';
import { useQuery, type QueryState } from './use-query.ts';

const StatsContext = createContext<QueryState<Stats> | null>(null);

export function StatsProvider({ children }: { children: ReactNode }) {
  const stats = useQuery((api) => api.stats({ recentFailures: 0 }), []);
  const arrived = stats.data !== undefined;
  useEffect(() => {
    // For the e2e run's first-paint measurement: when the counts are first on screen.
    if (arrived && performance.getEntriesByName('semaforo:first-stats').length === 0)
      performance.mark('semaforo:first-stats');
  }, [arrived]);
  return <StatsContext.Provider value={stats}>{children}</StatsContext.Provider>;
}

export function useStats(): QueryState<Stats> {
  const v = useContext(StatsContext);
  if (!v) throw new Error('useStats outside <StatsProvider>');
  return v;
}
