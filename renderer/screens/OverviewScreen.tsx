import { lazy } from 'react';
import { ChunkBoundary } from '../components/ChunkBoundary.tsx';
import type { Task, TaskStatus } from '../../shared/domain.ts';
import { BigNumber } from '../components/BigNumber.tsx';
import { ErrorState } from '../components/ErrorState.tsx';
import { GroupCard } from '../components/GroupCard.tsx';
import { LoadingState } from '../components/LoadingState.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { QueueLight } from '../components/QueueLight.tsx';
import { RunningList } from '../components/RunningList.tsx';
import { PauseButton } from '../components/PauseButton.tsx';
import { useConnected } from '../state/connection.ts';
import { clockTime } from '../state/format.ts';
import { useStats } from '../state/stats.tsx';
import { queueState, STATUS_META } from '../state/status.ts';
import { useNow } from '../state/use-now.ts';

// The chart library loads beside the Overview's numbers, not before them.
const ThroughputCharts = lazy(() =>
  import('../components/ThroughputCharts.tsx').then((m) => ({ default: m.ThroughputCharts })),
);

export function OverviewScreen(props: {
  openTask(task: Task): void;
  showTasks(status: TaskStatus[]): void;
  showFailures(): void;
}) {
  const { openTask, showTasks, showFailures } = props;
  const stats = useStats();
  const connected = useConnected();
  const now = useNow(1000);
  const stale = !connected || stats.error !== undefined;
  if (stats.loading) return <LoadingState label="Loading the queue…" />;
  if (!stats.data)
    return (
      <ErrorState error={stats.error ?? new Error('no answer')} what="the queue" onRetry={stats.reload} />
    );
  const s = stats.data;
  const c = s.counts;
  const state = queueState(s);
  return (
    <div className="screen overview">
      <header className="screen-head">
        <h1>Overview</h1>
        <QueueLight state={state} />
        <span className="muted" data-testid="queue-state">
          {s.settings.paused
            ? 'Paused: running tasks finish, nothing new starts.'
            : `Running, up to ${s.settings.globalConcurrency} at once.`}
        </span>
        <PauseButton paused={s.settings.paused} onDone={stats.reload} />
      </header>
      {stats.error && (
        <p className="banner tone-red" role="alert">
          Showing older numbers: {stats.error.message}
        </p>
      )}
      {stale && stats.updatedAt !== undefined && (
        <p className="stale-marker muted" data-testid="stale-marker">
          <span aria-hidden="true">⏸</span> Numbers as of {clockTime(stats.updatedAt)}: not updating while the
          server cannot be reached
        </p>
      )}
      <section className={`big-numbers${stale ? ' stale' : ''}`} aria-label="Counts">
        <BigNumber
          label="Running"
          value={c.running}
          symbol={STATUS_META.running.symbol}
          tone="amber"
          onOpen={() => showTasks(['running'])}
        />
        <BigNumber
          label="Waiting"
          value={c.pending + c.retrying}
          symbol={STATUS_META.pending.symbol}
          tone="amber"
          hint={c.retrying ? `${c.retrying} retrying` : undefined}
          onOpen={() => showTasks(['pending', 'retrying'])}
        />
        <BigNumber
          label="Failed"
          value={c.failed}
          symbol={STATUS_META.failed.symbol}
          tone={c.failed ? 'red' : 'grey'}
          onOpen={showFailures}
        />
        <BigNumber
          label="Done"
          value={c.done}
          symbol={STATUS_META.done.symbol}
          tone="green"
          hint={c.cancelled ? `${c.cancelled} cancelled` : undefined}
          onOpen={() => showTasks(['done'])}
        />
      </section>
      <div className="overview-columns">
        <section aria-labelledby="running-title" className="panel">
          <h2 id="running-title">Running now</h2>
          <RunningList now={now} openTask={openTask} />
        </section>
        <section aria-labelledby="charts-title" className="panel">
          <h2 id="charts-title">Throughput and failures</h2>
          <ChunkBoundary loading="Loading the charts…" what="the charts">
            <ThroughputCharts />
          </ChunkBoundary>
        </section>
      </div>
      <section aria-labelledby="groups-title">
        <h2 id="groups-title">Groups</h2>
        {s.groups.length === 0 ? (
          <EmptyState title="No groups yet">Tasks go to the group “default” unless they name one.</EmptyState>
        ) : (
          <div className="group-cards">
            {s.groups.map((g) => (
              <GroupCard key={g.name} group={g} now={now} />
            ))}
          </div>
        )}
      </section>
    </div>
  );
}
