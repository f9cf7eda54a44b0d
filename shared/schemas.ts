/**
 * Schemas for every input the faces hand to the engine. Each boundary (IPC, HTTP, CLI, the
 * engine's own API) validates with these, so the same bad input gets the same message everywhere.
 */
import { z } from 'zod';
import {
  DURABILITIES,
  MISSED_POLICIES,
  OVERLAP_POLICIES,
  TASK_STATUSES,
  type JsonValue,
  type ResourceUse,
} from './domain.ts';
import { cronProblem, isTimeZone } from './schedule-times.ts';
import { ValidationError, formatPath } from './errors.ts';
import { checkJson } from './json.ts';
import { durationProblem, formatDuration, parseDuration } from './durations.ts';
import { LIMITS, NAME_RE, SORT_FIELDS, wellFormed } from './limits.ts';
import { scheduleAlarmsSchema } from './schedule-alarms-schema.ts';
import { parseUsesText, RESOURCE_NAME_RE, RESOURCE_NAME_RULE, sortedUses, usesProblem } from './resources.ts';

export { LIMITS, NAME_RE, SORT_FIELDS, wellFormed };

const nameLike = (what: string) =>
  z.string({ error: `must be a string` }).regex(NAME_RE, {
    error: `must be 1-64 letters, digits or . _ : - and start with a letter or digit (a ${what} name)`,
  });

export const kindSchema = nameLike('kind');
export const groupNameSchema = nameLike('group');

export const intIn = (min: number, max: number) =>
  z
    .number({ error: `must be an integer from ${min} to ${max}` })
    .int({ error: `must be an integer from ${min} to ${max}` })
    .min(min, { error: `must be an integer from ${min} to ${max}` })
    .max(max, { error: `must be an integer from ${min} to ${max}` });

/** A per-attempt time limit in milliseconds, as handler payloads and modules give it. */
export const timeoutMsSchema = z
  .number({ error: `must be a number of milliseconds from 1 to ${LIMITS.timeoutMs.max}` })
  .int({ error: 'must be a whole number of milliseconds' })
  .min(1, { error: `must be a number of milliseconds from 1 to ${LIMITS.timeoutMs.max}` })
  .max(LIMITS.timeoutMs.max, { error: `must be a number of milliseconds from 1 to ${LIMITS.timeoutMs.max}` });

/** A duration in milliseconds (0 up to 100 years). */
export const durationSchema = intIn(0, 100 * 365 * 24 * 3600_000);

/** Milliseconds in a range, refused in words a person reads (`from 1s to 366d`), ms after. */
const msIn = (min: number, max: number) => {
  const error = `must be from ${formatDuration(min)} to ${formatDuration(max)} (${min} to ${max} milliseconds)`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

/**
 * A duration in a field whose name does not say its unit (`timeout`, `delay`): text such as
 * "30s" only. A bare number is refused: 600 meant seconds to one writer and milliseconds to
 * another; the message points at the `...Ms` field that takes milliseconds.
 */
const durationTextSchema = <N extends boolean = false>(
  msField: string,
  min: number,
  max: number,
  nullable?: N,
) =>
  z.unknown().transform((v, ctx): N extends true ? number | null : number => {
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    if (v === null && nullable) return null as never;
    if (typeof v !== 'string')
      return fail(`use a duration like "30s" or a number of milliseconds in ${msField}`);
    const ms = parseDuration(v);
    if (ms === null) return fail(`"${v}" ${durationProblem(v)}`);
    if (ms < min || ms > max) return fail(`must be from ${formatDuration(min)} to ${formatDuration(max)}`);
    return ms as never;
  });

export const prioritySchema = intIn(LIMITS.priority.min, LIMITS.priority.max);

// Optional before the transform: zod refuses a missing key for a bare transform ("expected
// nonoptional"), so `{"kind":"sleep"}` without a payload would fail with no useful message.
const payloadSchema = z
  .unknown()
  .optional()
  .transform((value, ctx): JsonValue => {
    const checked = checkJson(value === undefined ? {} : value, LIMITS.payload);
    if (!checked.ok) {
      ctx.addIssue({ code: 'custom', message: checked.message });
      return z.NEVER;
    }
    return value === undefined ? {} : (value as JsonValue);
  });

/** A time: epoch milliseconds or an ISO 8601 string with a time zone (`2026-12-02T03:47:00Z`). */
const instantSchema = z.union(
  [z.number().int().min(0), z.iso.datetime({ offset: true, local: false }).transform((s) => Date.parse(s))],
  { error: 'must be an ISO 8601 time with a zone (e.g. 2026-12-02T03:47:00Z) or epoch milliseconds' },
);

const WELL_FORMED = { error: 'must be valid Unicode text (it holds a lone surrogate)' };

/** What a caller gives to enqueue one task. Field names match the task's JSON shape. */
const taskNameSchema = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(LIMITS.nameLength, { error: `must be at most ${LIMITS.nameLength} characters` })
  .refine(wellFormed, WELL_FORMED);
const maxAttemptsSchema = intIn(LIMITS.maxAttempts.min, LIMITS.maxAttempts.max);
const taskTimeoutMsSchema = z.union([msIn(LIMITS.timeoutMs.min, LIMITS.timeoutMs.max), z.null()]);
const taskTimeoutTextSchema = durationTextSchema(
  'timeoutMs',
  LIMITS.timeoutMs.min,
  LIMITS.timeoutMs.max,
  true,
);
const timeoutFields = {
  timeout: taskTimeoutTextSchema.optional(),
  timeoutMs: taskTimeoutMsSchema.optional(),
};

/** `timeout` and `timeoutMs` (`delay` and `delayMs`) are two spellings of one field. */
function oneSpelling(s: Record<string, unknown>, ctx: z.RefinementCtx): void {
  for (const f of ['timeout', 'delay'])
    if (s[f] !== undefined && s[`${f}Ms`] !== undefined)
      ctx.addIssue({ code: 'custom', path: [`${f}Ms`], message: `give either ${f} or ${f}Ms, not both` });
}

/**
 * The spec as the engine reads it: the `...Ms` spellings folded into `timeout` and `delay`, keys
 * in the schema's order (the quick check in task-spec-quick.ts gives the same).
 */
function folded<T extends Record<string, unknown>>(s: T) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (v === undefined) continue;
    if (k === 'timeoutMs' || k === 'delayMs') out[k.slice(0, -2)] = v;
    else out[k] = v;
  }
  return out as Omit<T, 'timeoutMs' | 'delayMs' | 'timeout' | 'delay'> & {
    timeout?: number | null;
    delay?: number;
  };
}

/** A named resource's name (`main-db`): no `:` or `,`, which `--uses cpu:2,nas` separates with. */
export const resourceNameSchema = z
  .string({ error: 'must be a string' })
  .regex(RESOURCE_NAME_RE, { error: RESOURCE_NAME_RULE });

export const resourceCapacitySchema = intIn(LIMITS.resourceCapacity.min, LIMITS.resourceCapacity.max);

/**
 * What a task uses while it runs: the text `--uses` takes (`"cpu:2,nas"`), or the task's own
 * JSON shape (`[{"resource":"cpu","weight":2}]`, weight 1 if left out). Sorted by name.
 */
const usesSchema = z.unknown().transform((v, ctx): ResourceUse[] => {
  const fail = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  if (typeof v === 'string') {
    const uses = parseUsesText(v);
    return Array.isArray(uses) ? uses : fail(uses.problem);
  }
  if (!Array.isArray(v)) return fail('must be text such as "cpu:2,nas" or a list of {resource, weight}');
  const uses: ResourceUse[] = [];
  for (const item of v as unknown[]) {
    const { resource, weight = 1 } = (typeof item === 'object' && item !== null ? item : {}) as {
      resource?: unknown;
      weight?: unknown;
    };
    if (typeof resource !== 'string' || typeof weight !== 'number')
      return fail('each item must be {"resource": NAME, "weight": N} (weight 1 if left out)');
    uses.push({ resource, weight });
  }
  const problem = usesProblem(uses);
  return problem === null ? sortedUses(uses) : fail(problem);
});

const IDLE_RANGE = 'must be an idle time from 1s to 365d (ms in JSON)';

/** A change to a machine gate; omitted fields stay as they are, null stops judging a reading. */
export const gateUpdateSchema = z.strictObject({
  maxLoad: z
    .union([
      z
        .number({ error: 'must be a load per core from 0.01 to 1000' })
        .min(0.01, { error: 'must be a load per core from 0.01 to 1000' })
        .max(1000, { error: 'must be a load per core from 0.01 to 1000' }),
      z.null(),
    ])
    .optional(),
  minFreeMemory: z.union([intIn(1, Number.MAX_SAFE_INTEGER), z.null()]).optional(),
  onAc: z.boolean({ error: 'must be true or false' }).optional(),
  whenIdleMs: z
    .union([
      z
        .number({ error: IDLE_RANGE })
        .int({ error: IDLE_RANGE })
        .min(1000, { error: IDLE_RANGE })
        .max(LIMITS.delayMs.max, { error: IDLE_RANGE }),
      z.null(),
    ])
    .optional(),
  pauseRunning: z.boolean({ error: 'must be true or false' }).optional(),
});
export type GateUpdate = z.infer<typeof gateUpdateSchema>;

/** The fields a task spec and a schedule's task template share, in the spec's order. */
const commonTaskFields = {
  kind: kindSchema,
  name: taskNameSchema.optional(),
  group: groupNameSchema.optional(),
  priority: prioritySchema.optional(),
  maxAttempts: maxAttemptsSchema.optional(),
  ...timeoutFields,
  uses: usesSchema.optional(),
};

export const taskSpecSchema = z
  .strictObject({
    ...commonTaskFields,
    runAt: instantSchema.optional(),
    delay: durationTextSchema('delayMs', 0, LIMITS.delayMs.max).optional(),
    delayMs: msIn(0, LIMITS.delayMs.max).optional(),
    unique: z
      .string({ error: 'must be a string' })
      .min(1, { error: 'must not be empty' })
      .max(LIMITS.uniqueLength, { error: `must be at most ${LIMITS.uniqueLength} characters` })
      .refine(wellFormed, WELL_FORMED)
      .optional(),
    payload: payloadSchema,
  })
  .superRefine(oneSpelling)
  .refine((s) => s.runAt === undefined || (s.delay === undefined && s.delayMs === undefined), {
    error: 'give either runAt or delay, not both',
    path: ['delay'],
  })
  .transform(folded);

export type TaskSpec = z.input<typeof taskSpecSchema>;
export type ParsedTaskSpec = z.output<typeof taskSpecSchema>;

export const rateLimitSchema = z.strictObject({
  limit: intIn(LIMITS.rate.minLimit, LIMITS.rate.maxLimit),
  periodMs: intIn(LIMITS.rate.minPeriodMs, LIMITS.rate.maxPeriodMs),
});

/** A change to one group's settings; omitted fields stay as they are, null clears a limit. */
export const groupUpdateSchema = z.strictObject({
  concurrency: z
    .union([intIn(LIMITS.groupConcurrency.min, LIMITS.groupConcurrency.max), z.null()])
    .optional(),
  rate: z.union([rateLimitSchema, z.null()]).optional(),
  paused: z.boolean({ error: 'must be true or false' }).optional(),
  /** starts allowed at once within the rate; null: evenly spaced (the default with a new rate) */
  burst: z.union([intIn(1, LIMITS.rate.maxLimit), z.null()]).optional(),
  /** learn the effective limits under the configured ones (caps) from throttles */
  adaptive: z.boolean({ error: 'must be true or false' }).optional(),
  /** forget what an adaptive group learned: start again from its caps */
  forgetLearned: z.literal(true, { error: 'must be true' }).optional(),
});
export type GroupUpdate = z.infer<typeof groupUpdateSchema>;

/** An http(s) URL without credentials (they would end up in logs and the task list). */
export const webhookUrlSchema = z
  .string({ error: 'must be a URL' })
  .max(2000, { error: 'must be at most 2000 characters' })
  .refine(wellFormed, WELL_FORMED)
  .refine(
    (s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
      } catch {
        return false;
      }
    },
    { error: 'must be an http:// or https:// URL without a user name or password' },
  );

export const settingsUpdateSchema = z.strictObject({
  globalConcurrency: intIn(LIMITS.globalConcurrency.min, LIMITS.globalConcurrency.max).optional(),
  paused: z.boolean({ error: 'must be true or false' }).optional(),
  retentionDays: intIn(LIMITS.retentionDays.min, LIMITS.retentionDays.max).optional(),
  notifications: z
    .strictObject({
      enabled: z.boolean({ error: 'must be true or false' }).optional(),
      groups: z
        .union([z.array(groupNameSchema).max(1000, { error: 'must list at most 1000 groups' }), z.null()])
        .optional(),
    })
    .optional(),
  failureWebhook: z.union([webhookUrlSchema, z.null()]).optional(),
  durability: z.enum(DURABILITIES, { error: 'must be "results" or "full"' }).optional(),
});
export type SettingsUpdate = z.infer<typeof settingsUpdateSchema>;

export const listQuerySchema = z.strictObject({
  // one status or several; always an array once parsed
  status: z
    .union([z.enum(TASK_STATUSES), z.array(z.enum(TASK_STATUSES))])
    .transform((s) => (Array.isArray(s) ? s : [s]))
    .optional(),
  group: groupNameSchema.optional(),
  kind: kindSchema.optional(),
  /** the tasks a schedule enqueued (its id) */
  schedule: intIn(1, Number.MAX_SAFE_INTEGER).optional(),
  /** case-insensitive substring of the name, error, payload or any attempt's output, or the id */
  search: z.string().max(200, { error: 'must be at most 200 characters' }).optional(),
  sort: z.enum(SORT_FIELDS).optional(),
  order: z.enum(['asc', 'desc']).optional(),
  limit: intIn(1, 1000).optional(),
  offset: intIn(0, Number.MAX_SAFE_INTEGER).optional(),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

export const taskIdSchema = z
  .number({ error: 'must be a task id (a positive integer)' })
  .int({ error: 'must be a task id (a positive integer)' })
  .positive({ error: 'must be a task id (a positive integer)' });

export const retryFilterSchema = z.strictObject({
  group: groupNameSchema.optional(),
  kind: kindSchema.optional(),
});
export type RetryFilter = z.infer<typeof retryFilterSchema>;

/**
 * Parses `input` with `schema`, or throws one ValidationError listing every problem, each with
 * its field path (prefixed with `prefix`, e.g. `tasks[3]`).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => {
    const tail = formatPath(issue.path);
    const path =
      prefix && tail ? (tail.startsWith('[') ? prefix + tail : `${prefix}.${tail}`) : prefix || tail;
    return { path, message: issue.message };
  });
  // One bad value can fail several checks that share a message (1e23 is neither an integer nor
  // at most 9): say it once, or the one-line error reads "priority: …; priority: …".
  const seen = new Set<string>();
  throw new ValidationError(
    issues.filter((i) => {
      const key = `${i.path}\0${i.message}`;
      return !seen.has(key) && Boolean(seen.add(key));
    }),
  );
}

// ---- schedules ----

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

/** What a schedule enqueues: a task spec without its own timing (the schedule gives that). */
export const taskTemplateSchema = z
  .strictObject({ ...commonTaskFields, payload: payloadSchema })
  .superRefine(oneSpelling)
  .transform(folded);

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
