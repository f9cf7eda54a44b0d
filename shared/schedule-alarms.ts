/**
 * A schedule's dead-man's switch: what the user expects of each run, and the schedule's health
 * judged against it (electron/core/policy/schedule-health.ts). A run that does not start within
 * the grace, runs longer than the maximum, ends suspiciously fast, or fails raises an alarm.
 */
import { z } from 'zod';
import { formatDuration } from './durations.ts';

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

const MAX_MS = 366 * 24 * 3600_000;
const limit = (min: number) => {
  const error = `must be from ${formatDuration(min)} to ${formatDuration(MAX_MS)} (${min} to ${MAX_MS} milliseconds)`;
  return z.union([z.number({ error }).int({ error }).min(min, { error }).max(MAX_MS, { error }), z.null()]);
};

/** The alarms as a caller gives them; an absent field is not watched. */
export const scheduleAlarmsSchema = z
  .strictObject({
    // A live scheduler fires within about a second; under 10 s, a busy machine would look late.
    graceMs: limit(10_000).optional(),
    maxRuntimeMs: limit(1000).optional(),
    minRuntimeMs: limit(1).optional(),
  })
  .superRefine((a, ctx) => {
    if (a.minRuntimeMs != null && a.maxRuntimeMs != null && a.minRuntimeMs >= a.maxRuntimeMs)
      ctx.addIssue({
        code: 'custom',
        path: ['minRuntimeMs'],
        message: 'must be shorter than the maximum run time',
      });
  })
  .transform((a): ScheduleAlarms => ({
    graceMs: a.graceMs ?? null,
    maxRuntimeMs: a.maxRuntimeMs ?? null,
    minRuntimeMs: a.minRuntimeMs ?? null,
  }));

export const watchesAnything = (a: ScheduleAlarms): boolean =>
  a.graceMs !== null || a.maxRuntimeMs !== null || a.minRuntimeMs !== null;

/** A schedule in an alarm state, as the faces announce it. */
export interface ScheduleAlarm {
  schedule: string;
  state: Exclude<HealthState, 'ok' | 'failed'>;
  since: number;
  message: string;
}
