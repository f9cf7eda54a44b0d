/**
 * A schedule's dead-man's switch (shared/schedule-alarms.ts): whether its runs do what the user
 * expects of them, judged from the stored schedule and its last task. Pure: every face (`schedule
 * list`, the dashboard, the tray, a worker's log) shows the same verdict.
 *
 * Order, when several hold: a run that never came (missed, late) hides the state of the run
 * before it; an overrun is about the run going now; failed and too-fast are about the last end.
 * A failure is shown without alarms set too: it is the last run's outcome.
 */
import type { Schedule } from '../../../shared/domain.ts';
import { formatDuration, formatElapsed } from '../../../shared/durations.ts';
import type { ScheduleHealth } from '../../../shared/schedule-alarms.ts';

export type HealthInput = Pick<
  Schedule,
  | 'enabled'
  | 'nextDueAt'
  | 'lastDueAt'
  | 'lastTaskId'
  | 'lastTaskStatus'
  | 'lastTaskStartedAt'
  | 'lastTaskFinishedAt'
  | 'alarms'
>;

const OK: ScheduleHealth = { state: 'ok', since: null, message: null };

export function scheduleHealth(s: HealthInput, now: number): ScheduleHealth {
  const { graceMs, maxRuntimeMs, minRuntimeMs } = s.alarms;
  const task = s.lastTaskId === null ? 'the last run' : `task ${s.lastTaskId}`;
  // A paused schedule is due nowhere: nothing can be missed.
  if (graceMs !== null && s.enabled && s.nextDueAt !== null && now >= s.nextDueAt + graceMs)
    return {
      state: 'missed',
      since: s.nextDueAt + graceMs,
      message: `not enqueued within ${formatDuration(graceMs)} of its due time: is a worker or the tray app running?`,
    };
  const waiting = s.lastTaskStatus === 'pending';
  if (graceMs !== null && waiting && s.lastDueAt !== null && now >= s.lastDueAt + graceMs)
    return {
      state: 'late',
      since: s.lastDueAt + graceMs,
      message: `${task} has not started ${formatDuration(graceMs)} after its due time`,
    };
  const started = s.lastTaskStartedAt;
  if (
    maxRuntimeMs !== null &&
    s.lastTaskStatus === 'running' &&
    started !== null &&
    now >= started + maxRuntimeMs
  )
    return {
      state: 'overrun',
      since: started + maxRuntimeMs,
      message: `${task} has run longer than ${formatDuration(maxRuntimeMs)}`,
    };
  const ended = s.lastTaskFinishedAt;
  if (s.lastTaskStatus === 'failed')
    return { state: 'failed', since: ended ?? now, message: `${task} failed` };
  if (minRuntimeMs !== null && s.lastTaskStatus === 'done' && started !== null && ended !== null) {
    const took = ended - started;
    if (took < minRuntimeMs)
      return {
        state: 'too-fast',
        since: ended,
        message: `${task} succeeded in ${formatElapsed(took)}, under the ${formatDuration(minRuntimeMs)} expected`,
      };
  }
  return OK;
}
