/**
 * A schedule's dead-man's switch: what the user expects of each run, and the schedule's health
 * judged against it (electron/core/policy/schedule-health.ts). A run that does not start within
 * the grace, runs longer than the maximum, ends suspiciously fast, or fails raises an alarm.
 */

/** Each limit in milliseconds; null: not watched. */
export interface ScheduleAlarms {
  /** a due run must have started this long after its due time */
  graceMs: number | null;
  /** a run still going after this long is an overrun */
  maxRuntimeMs: number | null;
  /** a run that succeeded in less than this probably did nothing */
  minRuntimeMs: number | null;
}

export const NO_ALARMS: ScheduleAlarms = { graceMs: null, maxRuntimeMs: null, minRuntimeMs: null };

export const HEALTH_STATES = ['ok', 'missed', 'late', 'overrun', 'failed', 'too-fast'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

export interface ScheduleHealth {
  state: HealthState;
  /** when the alarm was raised (null when ok): with the state, it names one alarm */
  since: number | null;
  /** one line for people, e.g. "due 03:00, not started after 10m" (null when ok) */
  message: string | null;
}

export const watchesAnything = (a: ScheduleAlarms): boolean =>
  a.graceMs !== null || a.maxRuntimeMs !== null || a.minRuntimeMs !== null;

/** A schedule in an alarm state, as the faces announce it. */
export interface ScheduleAlarm {
  schedule: string;
  state: Exclude<HealthState, 'ok' | 'failed'>;
  since: number;
  message: string;
}
