import type { LeasedTask, WorkerLeases } from '../../shared/domain.ts';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorState } from '../components/ErrorState.tsx';
import { LoadingState } from '../components/LoadingState.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { plural, relativeTime } from '../state/format.ts';
import { isPlainClick, taskHref } from '../state/route.ts';
import { useNow } from '../state/use-now.ts';
import { useQuery } from '../state/use-query.ts';

/** Who holds which leases, since when: each lease owner with the tasks it runs. */
export function WorkersScreen({ openTask }: { openTask(id: number): void }) {
  const now = useNow();
  // Renewals send no change event; the periodic refresh keeps expiries from going stale.
  const q = useQuery((api) => api.workers({}), [], { minIntervalMs: 1000, refreshMs: 5000 });
  let body;
  if (q.loading) body = <LoadingState label="Loading workers…" />;
  else if (!q.data) body = <ErrorState error={q.error!} what="workers" onRetry={q.reload} />;
  else if (q.data.length === 0)
    body = (
      <EmptyState title="No worker holds a lease">
        A worker appears here while it runs a task: the app, <code>semaforo work</code> or{' '}
        <code>semaforo serve</code>, on any host that opens this queue.
      </EmptyState>
    );
  else
    body = (
      <div className="worker-list">
        {q.data.map((w) => (
          <WorkerPanel key={w.id} worker={w} now={now} openTask={openTask} />
        ))}
      </div>
    );
  return (
    <div className="screen workers-screen">
      <header className="screen-head">
        <h1>Workers</h1>
        <span className="muted">who holds which leases, on every host that opens this queue</span>
      </header>
      {body}
    </div>
  );
}

function WorkerPanel({
  worker: w,
  now,
  openTask,
}: {
  worker: WorkerLeases;
  now: number;
  openTask(id: number): void;
}) {
  const titleId = `worker-${w.id}`;
  return (
    <section className="panel worker-row" aria-labelledby={titleId}>
      <header>
        <h2 id={titleId}>{w.id}</h2>
        <span className="muted">
          host {w.host ?? 'unknown'} · pid {w.pid ?? 'unknown'} · {plural(w.tasks.length, 'task')} · since{' '}
          <RelativeTime at={w.since} now={now} />
        </span>
      </header>
      <table className="lease-table">
        <caption className="sr-only">Tasks leased to {w.id}</caption>
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">Group</th>
            <th scope="col">Started</th>
            <th scope="col">Lease</th>
          </tr>
        </thead>
        <tbody>
          {w.tasks.map((t) => (
            <LeaseRow key={t.id} task={t} now={now} openTask={openTask} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function LeaseRow({ task: t, now, openTask }: { task: LeasedTask; now: number; openTask(id: number): void }) {
  return (
    <tr>
      <td>
        <a
          href={taskHref(t.id)}
          onClick={(e) => {
            if (!isPlainClick(e)) return; // the browser's new tab
            e.preventDefault();
            openTask(t.id);
          }}
        >
          {t.name}
        </a>{' '}
        <span className="muted">
          #{t.id} · {t.kind}
        </span>
      </td>
      <td>{t.group}</td>
      <td>
        <RelativeTime at={t.startedAt} now={now} />
      </td>
      <td>{leaseText(t.leaseExpiresAt, now)}</td>
    </tr>
  );
}

/** An expired lease is the one thing here that needs attention: its owner may be gone. */
function leaseText(expiresAt: number | null, now: number) {
  if (expiresAt === null) return <span className="muted">—</span>;
  if (expiresAt > now) return <span>expires {relativeTime(expiresAt, now)}</span>;
  return (
    <span className="tone-amber">
      <span aria-hidden="true">⚠ </span>expired {relativeTime(expiresAt, now)}
    </span>
  );
}
