/**
 * The one contract between the engine and its faces: a map of request names to their input
 * schemas and output types, and a map of event names to payloads. The Electron IPC transport and
 * the HTTP+SSE transport are generic over these maps, so adding a request means adding it here and
 * to the engine-facing service (electron/core/service.ts), nowhere else.
 *
 * Inputs are always one object (or nothing), so every transport sends the same JSON.
 */
import { z } from 'zod';
import { REQUEST_NAMES, type RequestName } from './request-names.ts';
import type { QueueInfo } from './queue-place.ts';
import type {
  EnqueueResult,
  GroupInfo,
  ThroughputSeries,
  KindInfo,
  Metrics,
  QueueSettings,
  Schedule,
  Stats,
  Task,
  TaskPage,
  TaskWithHistory,
  WorkerLeases,
  GroupStats,
  GateState,
} from './domain.ts';
import { SERIES_RANGES } from './domain.ts';
import {
  groupNameSchema,
  groupUpdateSchema,
  LIMITS,
  listQuerySchema,
  prioritySchema,
  recurrenceSchema,
  retryFilterSchema,
  scheduleNameSchema,
  scheduleSpecSchema,
  settingsUpdateSchema,
  taskIdSchema,
  taskSpecSchema,
} from './schemas.ts';
import { bulkRequestSchema, type BulkResult, type CauseCount } from './task-filter.ts';

const ids = z
  .array(taskIdSchema, { error: 'must be an array of task ids' })
  .min(1, { error: 'must name at least one task' })
  .max(LIMITS.batch, { error: `must name at most ${LIMITS.batch} tasks` });
const nothing = z.strictObject({}).optional();
const byName = z.strictObject({ name: scheduleNameSchema });
const maybeGroup = z.strictObject({ group: groupNameSchema.optional() }).optional();

/** Input schema of every request. */
export const requestSchemas = {
  stats: z.strictObject({ recentFailures: z.number().int().min(0).max(100).optional() }).optional(),
  metrics: z
    .strictObject({
      windowMs: z
        .number()
        .int()
        .min(60_000)
        .max(7 * 24 * 3600_000)
        .optional(),
    })
    .optional(),
  /** the Overview's charts: the last hour (default), day or week, in total and per group, in one request */
  throughputSeries: z
    .strictObject({ range: z.enum(SERIES_RANGES, { error: 'must be "1h", "24h" or "7d"' }).optional() })
    .optional(),
  listTasks: listQuerySchema.optional(),
  getTask: z.strictObject({ id: taskIdSchema }),
  enqueue: taskSpecSchema,
  retry: z.strictObject({ ids }),
  retryFailed: retryFilterSchema.optional(),
  /** retry, cancel or delete every task a filter matches (shared/task-filter.ts) */
  actOnMatching: bulkRequestSchema,
  /** how many failed tasks each failure group holds, beyond the Failures screen's page */
  failureCounts: nothing,
  cancel: z.strictObject({ ids }),
  remove: z.strictObject({ ids }),
  setPriority: z.strictObject({ id: taskIdSchema, priority: prioritySchema }),
  pause: maybeGroup,
  resume: maybeGroup,
  updateGroup: z.strictObject({ name: groupNameSchema, update: groupUpdateSchema }),
  settings: nothing,
  updateSettings: settingsUpdateSchema,
  purge: z.strictObject({ olderThanMs: z.number().int().min(0) }),
  kinds: nothing,
  listSchedules: nothing,
  getSchedule: byName,
  createSchedule: scheduleSpecSchema,
  /** replaces the whole schedule (the dashboard's edit form); a new `name` renames it */
  updateSchedule: z.strictObject({ name: scheduleNameSchema, schedule: scheduleSpecSchema }),
  pauseSchedule: byName,
  resumeSchedule: byName,
  removeSchedule: byName,
  runScheduleNow: byName,
  /** the next due times of a recurrence, for the live preview in the form */
  previewSchedule: recurrenceSchema,
  queueInfo: nothing,
  /** who holds which leases, since when (the Workers screen) */
  workers: nothing,
  /** each group's oldest waiting task and its last hour's run times (the Groups screen) */
  groupStats: nothing,
  /** each machine gate as the serving process's machine judges it now (the Groups screen) */
  gateStates: nothing,
} as const satisfies Record<RequestName, z.ZodType>;

/** Output type of every request. */
export interface ApiOutputs {
  stats: Stats;
  metrics: Metrics;
  throughputSeries: ThroughputSeries;
  listTasks: TaskPage;
  getTask: TaskWithHistory;
  enqueue: EnqueueResult;
  retry: { ids: number[] };
  retryFailed: { ids: number[] };
  actOnMatching: BulkResult;
  failureCounts: CauseCount[];
  cancel: { cancelled: number[]; requested: number[] };
  remove: { ids: number[] };
  setPriority: Task;
  pause: QueueSettings | GroupInfo;
  resume: QueueSettings | GroupInfo;
  updateGroup: GroupInfo;
  settings: QueueSettings;
  updateSettings: QueueSettings;
  purge: { count: number };
  kinds: KindInfo[];
  listSchedules: Schedule[];
  getSchedule: Schedule;
  createSchedule: Schedule;
  updateSchedule: Schedule;
  pauseSchedule: Schedule;
  resumeSchedule: Schedule;
  removeSchedule: { name: string };
  runScheduleNow: EnqueueResult;
  /** `timezone` is the zone the times were computed in (the local one when none was given) */
  previewSchedule: { times: number[]; timezone: string | null };
  /** which store the queue is on (the location never carries a password) */
  queueInfo: QueueInfo;
  workers: WorkerLeases[];
  groupStats: GroupStats[];
  gateStates: GateState[];
}

// Every name has a schema (`satisfies` above) and an output, and no schema lacks a name.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const namesMatch: Exact<keyof typeof requestSchemas, RequestName> & Exact<keyof ApiOutputs, RequestName> =
  true;
void namesMatch;
export { REQUEST_NAMES, type RequestName };
/** What a caller passes (before defaults and transforms). */
export type ApiInput<K extends RequestName> = z.input<(typeof requestSchemas)[K]>;
/** What the service receives once the boundary has validated the input. */
export type ApiParsedInput<K extends RequestName> = z.output<(typeof requestSchemas)[K]>;
export type ApiOutput<K extends RequestName> = ApiOutputs[K];

export function isRequestName(name: string): name is RequestName {
  return Object.hasOwn(requestSchemas, name);
}

/** Events pushed to the faces, at most a few per second (coalesced at the source). */
export interface ApiEvents {
  /** Some tasks changed; `taskIds` are those this process knows of, `external` another process wrote. */
  changed: { taskIds: number[]; external: boolean };
  /** Only from the desktop app: show this task, or the failures (a notification or tray click). */
  navigate: { taskId?: number; failuresOfGroup?: string };
}
export type EventName = keyof ApiEvents;
export type ApiEvent = { [K in EventName]: { type: K; data: ApiEvents[K] } }[EventName];

/** Transports carry failures as shared/errors.ts ErrorInfo (`name` tells validation, not found, ...). */
export type { ErrorInfo } from './errors.ts';

/**
 * What the renderer is handed: one async function per request, plus a subscription. It cannot
 * tell whether it talks IPC or HTTP.
 */
export type QueueApi = {
  [K in RequestName]: (input: ApiInput<K>) => Promise<ApiOutput<K>>;
} & {
  subscribe(listener: (event: ApiEvent) => void): () => void;
};
