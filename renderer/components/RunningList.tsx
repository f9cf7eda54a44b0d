import type { Task } from '../../shared/domain.ts';
import { humanDuration, plural } from '../state/format.ts';
import { isPlainClick, taskHref } from '../state/route.ts';
import { useQuery } from '../state/use-query.ts';
import { EmptyState } from './EmptyState.tsx';
import { ErrorState } from './ErrorState.tsx';
import { LoadingState } from './LoadingState.tsx';
import { ProgressBar } from './ProgressBar.tsx';

const SHOWN = 50;

/** The tasks running right now, with elapsed time (ticking here) and progress. */
export function RunningList({ now, openTask }: { now: number; openTask(task: Task): void }) {
  const q = useQuery(
    (api) => api.listTasks({ status: ['running'], sort: 'createdAt', order: 'asc', limit: SHOWN }),
    [],
  );
  if (q.loading) return <LoadingState label="Loading running tasks…" />;
  if (!q.data) return <ErrorState error={q.error!} what="running tasks" onRetry={q.reload} />;
  const { tasks, total } = q.data;
  if (tasks.length === 0) return <EmptyState symbol="○" title="Nothing running" />;
  return (
    <>
      <ul className="running-list" aria-label="Running tasks">
        {tasks.map((t) => (
          <li key={t.id}>
            <a
              className="running-item"
              href={taskHref(t.id)}
              onClick={(e) => {
                if (!isPlainClick(e)) return; // the browser's new tab
                e.preventDefault();
                openTask(t);
              }}
            >
              <span className="running-name">
                <span className="tone-amber" aria-hidden="true">
                  ▶{' '}
                </span>
                {t.name}
              </span>
              <span className="muted">
                {t.group} · {t.kind} · attempt {t.attempts}/{t.maxAttempts}
              </span>
              <span className="running-elapsed">{t.startedAt ? humanDuration(now - t.startedAt) : ''}</span>
              <ProgressBar value={t.progress} label={`Progress of ${t.name}`} />
            </a>
          </li>
        ))}
      </ul>
      {total > tasks.length && (
        <p className="muted">and {plural(total - tasks.length, 'more running task')}</p>
      )}
    </>
  );
}
