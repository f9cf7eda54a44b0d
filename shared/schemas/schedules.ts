/**
 * A schedule as a caller creates or replaces it: its name, its recurrence (a cron line in a zone,
 * or an interval), the task it enqueues, and what it does about missed and overlapping runs.
 */
import { z } from 'zod';
import { MISSED_POLICIES, OVERLAP_POLICIES } from '../domain.ts';
import { cronProblem, isTimeZone } from '../schedule-times.ts';
import { scheduleAlarmsSchema } from '../schedule-alarms-schema.ts';
import { intIn, msIn, nameLike } from './fields.ts';
import { taskTemplateSchema } from './task-spec.ts';

export const scheduleNameSchema = nameLike('schedule');

/** A 5-field cron expression (minute hour day-of-month month day-of-week), or @daily and friends. */
export const cronSchema = z
  .string({ error: 'must be a cron expression' })
  .max(200, { error: 'must be at most 200 characters' })
  .transform((s) => s.trim().replace(/\s+/g, ' '))
  .superRefine((s, ctx) => {
    const problem = cronProblem(s);
    if (problem)
      ctx.addIssue({
        code: 'custom',
        message: `is not a valid 5-field cron expression (minute hour day month weekday): ${problem}`,
      });
  });

export const timeZoneSchema = z
  .string({ error: 'must be an IANA time zone name' })
  .max(100, { error: 'must be at most 100 characters' })
  .refine(isTimeZone, { error: 'is not a known IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)' });

/** Interval schedules: at least a second apart, at most a year. */
export const everyMsSchema = msIn(1000, 366 * 24 * 3600_000);

const recurrenceFields = {
  cron: cronSchema.optional(),
  timezone: timeZoneSchema.optional(),
  everyMs: everyMsSchema.optional(),
};

function checkRecurrence(s: { cron?: string; timezone?: string; everyMs?: number }, ctx: z.RefinementCtx) {
  if ((s.cron === undefined) === (s.everyMs === undefined))
    ctx.addIssue({
      code: 'custom',
      path: ['cron'],
      message: 'give either cron or everyMs, not both or neither',
    });
  if (s.timezone !== undefined && s.cron === undefined)
    ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'applies to cron schedules only' });
}

/** A whole schedule as a caller creates or replaces it. */
export const scheduleSpecSchema = z
  .strictObject({
    name: scheduleNameSchema,
    ...recurrenceFields,
    task: taskTemplateSchema,
    missed: z.enum(MISSED_POLICIES, { error: 'must be skip, once or all' }).optional(),
    overlap: z.enum(OVERLAP_POLICIES, { error: 'must be allow or skip' }).optional(),
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    alarms: scheduleAlarmsSchema.optional(),
  })
  .superRefine(checkRecurrence);
export type ScheduleSpec = z.input<typeof scheduleSpecSchema>;
export type ParsedScheduleSpec = z.output<typeof scheduleSpecSchema>;

/** The recurrence alone, for a preview of the next due times while the user types. */
export const recurrenceSchema = z
  .strictObject({ ...recurrenceFields, count: intIn(1, 50).optional() })
  .superRefine(checkRecurrence);
