/**
 * Acting on what matches, not on what a screen loaded: the filter (the Tasks list's own, plus a
 * failure group's cause) and the request that retries, cancels or deletes every task it matches
 * (at most `max`, the number the user confirmed), decided by the server over the whole queue.
 */
import { z } from 'zod';
import { LIMITS } from './limits.ts';
import { intIn, listQuerySchema, taskIdSchema } from './schemas.ts';

export const BULK_ACTIONS = ['retry', 'cancel', 'remove'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

export const taskFilterSchema = listQuerySchema
  .pick({ status: true, group: true, kind: true, schedule: true, search: true })
  .extend({
    /** a failure group: `failureKey(kind, failureCause(error))` of shared/failure-cause.ts */
    cause: z.string().min(1).max(2000, { error: 'must be at most 2000 characters' }).optional(),
  });
export type TaskFilter = z.infer<typeof taskFilterSchema>;

export const bulkRequestSchema = z.strictObject({
  action: z.enum(BULK_ACTIONS),
  filter: taskFilterSchema,
  /**
   * Act on at most this many (in id order): the count the confirm showed, so tasks that began to
   * match meanwhile are not touched without being counted.
   */
  max: intIn(1, LIMITS.bulk),
  /**
   * Act only on ids up to this one: the dry run's `lastId`, so the tasks acted on are among those
   * counted, not merely as many (ids only grow, so a task enqueued meanwhile is above it).
   */
  throughId: taskIdSchema.optional(),
  /** count only: what the action would touch now, nothing written */
  dryRun: z.boolean().optional(),
});
export type BulkRequest = z.infer<typeof bulkRequestSchema>;

/** What an action by filter did (or, on a dry run, would do). */
export interface BulkResult {
  /** retried, cancelled while waiting, or deleted */
  count: number;
  /** running tasks whose worker was asked to stop them (cancel only) */
  stopping: number;
  /** the highest id among them (null: none), to pass back as `throughId` */
  lastId: number | null;
}

/** The failed tasks of one failure group (`cause` as in TaskFilter), over the whole queue. */
export interface CauseCount {
  cause: string;
  count: number;
}
