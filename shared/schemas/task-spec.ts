/**
 * What a caller gives to enqueue one task (a task spec), and what a schedule enqueues (a task
 * template: the same fields without timing). Field names match the task's JSON shape.
 */
import { z } from 'zod';
import { LIMITS, wellFormed } from '../limits.ts';
import {
  WELL_FORMED,
  durationTextSchema,
  groupNameSchema,
  instantSchema,
  intIn,
  kindSchema,
  msIn,
  payloadSchema,
  prioritySchema,
} from './fields.ts';
import { usesSchema } from './resources.ts';

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

/** What a schedule enqueues: a task spec without its own timing (the schedule gives that). */
export const taskTemplateSchema = z
  .strictObject({ ...commonTaskFields, payload: payloadSchema })
  .superRefine(oneSpelling)
  .transform(folded);
