/**
 * Schemas for every input the faces hand to the engine. Each boundary (IPC, HTTP, CLI, the
 * engine's own API) validates with these, so the same bad input gets the same message everywhere.
 * They live by area under schemas/; this index is the one import point the faces and stores use
 * (over forty importers), so an area can move without touching them.
 */
export { LIMITS, NAME_RE, SORT_FIELDS, wellFormed } from './limits.ts';
export {
  durationSchema,
  groupNameSchema,
  intIn,
  kindSchema,
  prioritySchema,
  timeoutMsSchema,
} from './schemas/fields.ts';
export { resourceCapacitySchema, resourceNameSchema } from './schemas/resources.ts';
export {
  taskSpecSchema,
  taskTemplateSchema,
  type ParsedTaskSpec,
  type TaskSpec,
} from './schemas/task-spec.ts';
export {
  gateUpdateSchema,
  groupUpdateSchema,
  rateLimitSchema,
  settingsUpdateSchema,
  webhookUrlSchema,
  type GateUpdate,
  type GroupUpdate,
  type SettingsUpdate,
} from './schemas/settings.ts';
export {
  listQuerySchema,
  retryFilterSchema,
  taskIdSchema,
  type ListQuery,
  type RetryFilter,
} from './schemas/queries.ts';
export { parseInput } from './schemas/parse-input.ts';
export {
  cronSchema,
  everyMsSchema,
  recurrenceSchema,
  scheduleNameSchema,
  scheduleSpecSchema,
  timeZoneSchema,
  type ParsedScheduleSpec,
  type ScheduleSpec,
} from './schemas/schedules.ts';
