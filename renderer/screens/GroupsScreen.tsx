import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorState } from '../components/ErrorState.tsx';
import { groupLoadText } from '../components/GroupCard.tsx';
import { GroupEditor } from '../components/GroupEditor.tsx';
import { GroupStatsLine } from '../components/GroupStatsLine.tsx';
import { LearnedLimit } from '../components/LearnedLimit.tsx';
import { LoadingState } from '../components/LoadingState.tsx';
import { PauseButton } from '../components/PauseButton.tsx';
import { ResourcesPanel } from '../components/ResourcesPanel.tsx';
import { formatCount } from '../state/format.ts';
import { useStats } from '../state/stats.tsx';
import { useQuery } from '../state/use-query.ts';

/** Every group with its load, and its concurrency limit, rate limit and pause switch to edit. */
export function GroupsScreen() {
  const stats = useStats();
  // A scan of every waiting task and the hour's finishes: at most every 5 s, not per change.
  const groupStats = useQuery((api) => api.groupStats({}), [], { minIntervalMs: 5000 });
  const statsOf = new Map(groupStats.data?.map((s) => [s.group, s]));
  // Gates are judged on a reading of the machine: read again every 5 s at most.
  const gateStates = useQuery((api) => api.gateStates({}), [], { minIntervalMs: 5000 });
  let body;
  if (stats.loading) body = <LoadingState label="Loading groups…" />;
  else if (!stats.data) body = <ErrorState error={stats.error!} what="groups" onRetry={stats.reload} />;
  else if (stats.data.groups.length === 0)
    body = (
      <EmptyState title="No groups yet">
        Tasks go to “default” unless they name a group; add limits below.
      </EmptyState>
    );
  else
    body = (
      <div className="group-list">
        {stats.data.groups.map((g) => {
          const load = groupLoadText(g);
          return (
            <section key={g.name} className="panel group-row" aria-labelledby={`group-title-${g.name}`}>
              <header>
                <h2 id={`group-title-${g.name}`}>{g.name}</h2>
                {g.paused && (
                  <span className="status tone-grey">
                    <span aria-hidden="true">‖</span> paused
                  </span>
                )}
                <span className="muted">
                  {load.running}, {load.rate} · {formatCount(g.counts.pending + g.counts.retrying)} waiting
                </span>
                <span className="push-right">
                  <PauseButton paused={g.paused} group={g.name} onDone={stats.reload} />
                </span>
              </header>
              {groupStats.data && <GroupStatsLine group={g.name} stats={statsOf.get(g.name)} />}
              <LearnedLimit group={g} now={Date.now()} onReset={stats.reload} />
              <GroupEditor
                key={`${g.name}:${g.concurrency}:${JSON.stringify(g.rate)}:${g.burst}:${g.adaptive !== null}`}
                group={g}
                onSaved={stats.reload}
              />
            </section>
          );
        })}
      </div>
    );
  return (
    <div className="screen groups-screen">
      <header className="screen-head">
        <h1>Groups</h1>
        <span className="muted">limits hold across every process that opens this queue</span>
      </header>
      {body}
      {stats.data && (
        <ResourcesPanel
          resources={stats.data.resources}
          gates={stats.data.gates}
          states={gateStates.data ?? []}
        />
      )}
      <section className="panel" aria-labelledby="new-group-title">
        <h2 id="new-group-title">Add a group</h2>
        <GroupEditor group={null} onSaved={stats.reload} />
      </section>
    </div>
  );
}
