/**
 * Changes to the queue's settings: the whole queue's (concurrency, pause, retention, alerts,
 * durability), one group's limits, and a machine gate. Omitted fields stay as they are.
 */
import { z } from 'zod';
import { DURABILITIES } from '../domain.ts';
import { LIMITS, wellFormed } from '../limits.ts';
import { WELL_FORMED, groupNameSchema, intIn } from './fields.ts';

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
