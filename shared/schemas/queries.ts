/** What selects tasks: a task id, a page of the list (filters, search, sort), a retry's filter. */
import { z } from 'zod';
import { TASK_STATUSES } from '../domain.ts';
import { SORT_FIELDS } from '../limits.ts';
import { groupNameSchema, intIn, kindSchema } from './fields.ts';

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
