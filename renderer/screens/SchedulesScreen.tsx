import { useEffect } from 'react';
import type { Schedule } from '../../shared/domain.ts';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorState } from '../components/ErrorState.tsx';
import { LoadingState } from '../components/LoadingState.tsx';
import { ScheduleRow } from '../components/ScheduleRow.tsx';
import { plural, relativeTime } from '../state/format.ts';
import { arrowFocus } from '../state/keyboard.ts';
import { useScheduleActions } from '../state/schedule-actions.ts';
import { useNow } from '../state/use-now.ts';
import { useQuery } from '../state/use-query.ts';

/** Past a due time, look again this long after it (the run it enqueued, or a skip, shows then). */
const AFTER_DUE_MS = 1500;

/** Every schedule with its next and last run, live; pause, resume, run now, edit, delete. */
export function SchedulesScreen(props: {
  openTaskId: number | null;
  openTask(id: number): void;
  /** the Tasks screen, filtered to this schedule's tasks */
  showTasks(schedule: Schedule): void;
  newSchedule(): void;
  editSchedule(name: string): void;
}) {
  const { openTaskId, openTask, showTasks, newSchedule, editSchedule } = props;
  const q = useQuery((api) => api.listSchedules({}), [], { minIntervalMs: 500 });
  const actions = useScheduleActions();
  const now = useNow(5000);

  // A due time that passes changes "next" even when the run it brings is skipped (no task event).
  const soonest = Math.min(
    ...(q.data ?? []).map((s) => (s.enabled && s.nextDueAt !== null ? s.nextDueAt : Infinity)),
  );
  const { reload } = q;
  useEffect(() => {
    if (!Number.isFinite(soonest)) return;
    const t = setTimeout(reload, Math.max(0, soonest - Date.now()) + AFTER_DUE_MS);
    return () => clearTimeout(t);
  }, [soonest, reload]);

  let body;
  if (q.loading) body = <LoadingState label="Loading schedules…" />;
  else if (!q.data) body = <ErrorState error={q.error!} what="schedules" onRetry={q.reload} />;
  else if (q.data.length === 0)
    body = (
      <EmptyState symbol="◷" title="No schedules yet">
        <p>
          A schedule enqueues a task again and again: on a cron expression (“every day at 03:00”) or at a
          fixed interval (“every 15 minutes”). The task then waits for its group’s limits like any other.
          Schedules fire while Semaforo runs — the desktop app, <code>semaforo work</code> or{' '}
          <code>semaforo serve</code>.
        </p>
        <p>
          <button type="button" className="primary" onClick={newSchedule}>
            <span aria-hidden="true">+</span> New schedule
          </button>
        </p>
      </EmptyState>
    );
  else
    body = (
      <>
        <ul className="schedule-list" aria-label="Schedules" onKeyDown={arrowFocus}>
          {q.data.map((s) => (
            <ScheduleRow
              key={s.id}
              schedule={s}
              now={now}
              openTaskId={openTaskId}
              actions={actions}
              onOpenTask={openTask}
              onShowTasks={showTasks}
              onEdit={editSchedule}
              onChanged={q.reload}
            />
          ))}
        </ul>
        <p className="keys-hint muted">↑↓ move · Enter edits · Delete deletes</p>
      </>
    );

  const damaged = (q.data ?? []).filter((s) => s.problem !== undefined).length;
  const paused = (q.data ?? []).filter((s) => !s.enabled && s.problem === undefined).length;
  return (
    <div className="screen schedules-screen">
      <header className="screen-head">
        <h1>Schedules</h1>
        {q.data && q.data.length > 0 && (
          <span className="muted" data-testid="schedule-summary">
            {plural(q.data.length, 'schedule')}
            {paused > 0 && `, ${paused} paused`}
            {damaged > 0 && `, ${damaged} damaged`}
            {Number.isFinite(soonest) && ` · next run ${relativeTime(soonest, now)}`}
          </span>
        )}
        <button type="button" className="primary push-right" onClick={newSchedule}>
          <span aria-hidden="true">+</span> New schedule
        </button>
      </header>
      {q.error && q.data && (
        <p className="banner tone-red" role="alert">
          Showing older data: {q.error.message}
        </p>
      )}
      {body}
    </div>
  );
}
