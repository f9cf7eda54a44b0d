import type { MouseEvent } from 'react';
import type { Schedule } from '../../shared/domain.ts';
import { formatCount } from '../state/format.ts';
import { isPlainClick, routeHash } from '../state/route.ts';
import { useQuery } from '../state/use-query.ts';
import { StatusBadge } from './StatusBadge.tsx';

/** How many of a schedule's newest tasks show as badges. */
export const RECENT_RUNS = 5;

/**
 * A schedule's newest tasks as status badges (symbol and word, newest first), each opening its
 * task, and a link to the Tasks screen filtered to all of them: the same `schedule` filter, so
 * the link's count is what the list shows.
 */
export function ScheduleRuns(props: {
  schedule: Schedule;
  onOpenTask(id: number): void;
  onShowTasks(schedule: Schedule): void;
}) {
  const { schedule: s, onOpenTask, onShowTasks } = props;
  const q = useQuery(
    (api) => api.listTasks({ schedule: s.id, sort: 'createdAt', order: 'desc', limit: RECENT_RUNS }),
    [s.id],
    { minIntervalMs: 2000 },
  );
  if (!q.data) return <span className="muted">{q.error ? 'could not load them' : '…'}</span>;
  if (q.data.total === 0) return <span className="muted">none yet</span>;
  const showAll = (e: MouseEvent) => {
    // A plain click filters this tab's Tasks screen; Ctrl/middle-click keeps the browser's own
    // (a new tab: the address carries the filter).
    if (!isPlainClick(e)) return;
    e.preventDefault();
    onShowTasks(s);
  };
  return (
    <>
      <ol className="recent-runs" aria-label={`Newest tasks of ${s.name}`}>
        {q.data.tasks.map((t) => (
          <li key={t.id}>
            <button
              type="button"
              className="task-chip"
              title={`Open task ${t.id}`}
              onClick={() => onOpenTask(t.id)}
            >
              <StatusBadge status={t.status} compact />
              <span className="muted">{t.id}</span>
            </button>
          </li>
        ))}
      </ol>{' '}
      <a
        href={routeHash({ screen: 'tasks', taskId: null, scheduleTasks: { id: s.id, name: s.name } })}
        onClick={showAll}
      >
        {q.data.total === 1 ? 'its task' : `all ${formatCount(q.data.total)} tasks`} →
      </a>
    </>
  );
}
