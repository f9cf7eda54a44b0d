import { useState, type KeyboardEvent } from 'react';
import type { Schedule } from '../../shared/domain.ts';
import { formatDuration } from '../../shared/durations.ts';
import { dateTimeIn, formatCount, relativeTime } from '../state/format.ts';
import { recurrenceText, zoneOf } from '../state/schedule-form.ts';
import type { ScheduleActions } from '../state/schedule-actions.ts';
import { describeCron } from '../../shared/cron-describe.ts';
import { RelativeTime } from './RelativeTime.tsx';
import { ScheduleRuns } from './ScheduleRuns.tsx';
import { StatusBadge } from './StatusBadge.tsx';

/** Active, paused or damaged, as symbol + word in its colour. */
function ScheduleState({ enabled, damaged }: { enabled: boolean; damaged: boolean }) {
  if (damaged)
    return (
      <span className="status tone-red" data-state="damaged">
        <span className="status-symbol" aria-hidden="true">
          ⚠
        </span>
        <span className="status-word">damaged</span>
      </span>
    );
  return (
    <span className={`status tone-${enabled ? 'green' : 'grey'}`} data-state={enabled ? 'active' : 'paused'}>
      <span className="status-symbol" aria-hidden="true">
        {enabled ? '◷' : '‖'}
      </span>
      <span className="status-word">{enabled ? 'active' : 'paused'}</span>
    </span>
  );
}

function NextDue({ s, now }: { s: Schedule; now: number }) {
  if (s.problem !== undefined) return <span className="muted">never: damaged</span>;
  if (!s.enabled) return <span className="muted">paused</span>;
  if (s.nextDueAt === null) return <span className="muted">never again</span>;
  const zone = zoneOf(s.timezone);
  return (
    <>
      <time
        dateTime={new Date(s.nextDueAt).toISOString()}
        title={`${dateTimeIn(s.nextDueAt, zone)} (${zone})`}
      >
        {relativeTime(s.nextDueAt, now)}
      </time>{' '}
      <span className="muted">({dateTimeIn(s.nextDueAt, undefined, s.everyMs !== null)})</span>
    </>
  );
}

/** The recurrence in words where it has common shape ("every day at 03:00"), and as written. */
function When({ s }: { s: Schedule }) {
  const words = s.cron !== null ? describeCron(s.cron) : null;
  if (!words) return <span className="schedule-when mono">{recurrenceText(s)}</span>;
  return (
    <span className="schedule-when">
      {words} <span className="mono muted">{recurrenceText(s)}</span>
    </span>
  );
}

/** What the dead-man's switch watches, in words. */
function Alarms({ s }: { s: Schedule }) {
  const a = s.alarms;
  const parts = [
    a.graceMs !== null && `starts within ${formatDuration(a.graceMs)}`,
    a.maxRuntimeMs !== null && `runs at most ${formatDuration(a.maxRuntimeMs)}`,
    a.minRuntimeMs !== null && `runs at least ${formatDuration(a.minRuntimeMs)}`,
  ].filter(Boolean);
  if (parts.length === 0) return <span className="muted">none</span>;
  return <>{parts.join(', ')}</>;
}

/** A schedule whose alarm holds (late, missed, overran, too fast) says so, in words and colour. */
function HealthNote({ s }: { s: Schedule }) {
  const h = s.health;
  if (h.state === 'ok' || h.state === 'failed') return null;
  const what = h.state === 'too-fast' ? 'ran too fast' : h.state;
  return (
    <p className="schedule-alarm tone-red" data-health={h.state}>
      <span aria-hidden="true">⚠ </span>
      <strong>{what}:</strong> {h.message}
    </p>
  );
}

/** A damaged schedule says what is damaged, and what can be done: the one text its disabled buttons point to. */
function ProblemNote({ s, id }: { s: Schedule; id: string }) {
  if (s.problem === undefined) return null;
  return (
    <p className="schedule-alarm tone-red" id={id} data-testid="schedule-problem">
      <span aria-hidden="true">⚠ </span>
      <strong>Damaged:</strong> {s.problem}. It never runs: edit it to replace it whole, or delete it.
    </p>
  );
}

function Skipped({ s }: { s: Schedule }) {
  const parts = [
    s.skippedOverlap > 0 && `${formatCount(s.skippedOverlap)} while the previous run was going`,
    s.skippedMissed > 0 && `${formatCount(s.skippedMissed)} missed while nothing ran`,
  ].filter(Boolean);
  if (parts.length === 0) return <span className="muted">none</span>;
  return <span className="tone-amber">{parts.join(', ')}</span>;
}

/**
 * One schedule: its state, name and recurrence, the next and the last run (the last task's
 * status opens that task), what was skipped, and its actions. Enter edits, Delete deletes.
 */
export function ScheduleRow(props: {
  schedule: Schedule;
  now: number;
  openTaskId: number | null;
  actions: ScheduleActions;
  onOpenTask(id: number): void;
  onShowTasks(schedule: Schedule): void;
  onEdit(name: string): void;
  onChanged(): void;
}) {
  const { schedule: s, now, openTaskId, actions, onOpenTask, onShowTasks, onEdit, onChanged } = props;
  const [busy, setBusy] = useState(false);
  const act = async (run: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await run();
      onChanged();
    } finally {
      setBusy(false);
    }
  };
  const onKeyDown = (e: KeyboardEvent<HTMLLIElement>) => {
    if (e.target !== e.currentTarget) return;
    if (e.key === 'Enter') {
      e.preventDefault();
      onEdit(s.name);
    } else if (e.key === 'Delete') {
      e.preventDefault();
      void act(() => actions.remove(s));
    }
  };
  const titleId = `schedule-title-${s.id}`;
  const problemId = `schedule-problem-${s.id}`;
  const damaged = s.problem !== undefined;
  // What a damaged schedule cannot do stays in view, disabled, pointing at why.
  const cannot = damaged
    ? {
        disabled: true,
        'aria-describedby': problemId,
        title: 'A damaged schedule cannot run: edit or delete it',
      }
    : { disabled: busy };
  const taskOpen = s.lastTaskId !== null && s.lastTaskId === openTaskId;
  return (
    <li
      className={`schedule-row${s.enabled && !damaged ? '' : ' paused'}${taskOpen ? ' open' : ''}`}
      aria-labelledby={titleId}
      data-row
      data-schedule={s.name}
      tabIndex={0}
      onKeyDown={onKeyDown}
    >
      <div className="schedule-title">
        <ScheduleState enabled={s.enabled} damaged={damaged} />
        <span className="schedule-name" id={titleId}>
          {s.name}
        </span>
        <When s={s} />
      </div>
      <ProblemNote s={s} id={problemId} />
      <HealthNote s={s} />
      <div className="schedule-actions" role="group" aria-label={`Actions for schedule ${s.name}`}>
        {s.enabled ? (
          <button type="button" disabled={busy} onClick={() => act(() => actions.pause(s))}>
            <span aria-hidden="true">‖</span> Pause
          </button>
        ) : (
          <button
            type="button"
            className={damaged ? undefined : 'primary'}
            {...cannot}
            onClick={() => act(() => actions.resume(s))}
          >
            <span aria-hidden="true">▶</span> Resume
          </button>
        )}
        <button type="button" {...cannot} onClick={() => act(() => actions.runNow(s))}>
          <span aria-hidden="true">↯</span> Run now
        </button>
        <button type="button" disabled={busy} onClick={() => onEdit(s.name)}>
          <span aria-hidden="true">✎</span> Edit
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => act(() => actions.remove(s))}>
          <span aria-hidden="true">⌫</span> Delete
        </button>
      </div>
      <dl className="schedule-facts">
        <div>
          <dt>Next</dt>
          <dd data-testid="next-due">
            <NextDue s={s} now={now} />
          </dd>
        </div>
        <div>
          <dt>Last run</dt>
          <dd data-testid="last-run">
            {s.lastEnqueuedAt === null ? (
              <span className="muted">never</span>
            ) : (
              <>
                <RelativeTime at={s.lastEnqueuedAt} now={now} />{' '}
                {s.lastTaskId !== null &&
                  (s.lastTaskStatus !== null ? (
                    <button
                      type="button"
                      className="task-chip"
                      title={`Open task ${s.lastTaskId}`}
                      onClick={() => onOpenTask(s.lastTaskId!)}
                    >
                      <StatusBadge status={s.lastTaskStatus} compact />
                      <span className="muted">task {s.lastTaskId}</span>
                    </button>
                  ) : (
                    <span className="muted">task {s.lastTaskId} (deleted)</span>
                  ))}
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Recent runs</dt>
          <dd data-testid="recent-runs">
            <ScheduleRuns schedule={s} onOpenTask={onOpenTask} onShowTasks={onShowTasks} />
          </dd>
        </div>
        <div>
          <dt>Alarms</dt>
          <dd data-testid="alarms">
            <Alarms s={s} />
          </dd>
        </div>
        <div>
          <dt>Skipped</dt>
          <dd data-testid="skipped">
            <Skipped s={s} />
          </dd>
        </div>
      </dl>
    </li>
  );
}
