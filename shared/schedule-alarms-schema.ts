/** The schema of a schedule's alarms as a caller gives them (schedule-alarms.ts says what they mean). */
import { z } from 'zod';
import { formatDuration } from './durations.ts';
import type { ScheduleAlarms } from './schedule-alarms.ts';

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
