/**
 * The names of the contract's requests (api.ts), apart from their schemas: a client needs only
 * the names to build its QueueApi, and the browser's first screen should not load the validator
 * for them. api.ts checks that the two lists agree.
 */
export const REQUEST_NAMES = [
  'stats',
  'metrics',
  'throughputSeries',
  'listTasks',
  'getTask',
  'enqueue',
  'retry',
  'retryFailed',
  'actOnMatching',
  'failureCounts',
  'cancel',
  'remove',
  'setPriority',
  'pause',
  'resume',
  'updateGroup',
  'settings',
  'updateSettings',
  'purge',
  'kinds',
  'listSchedules',
  'getSchedule',
  'createSchedule',
  'updateSchedule',
  'pauseSchedule',
  'resumeSchedule',
  'removeSchedule',
  'runScheduleNow',
  'previewSchedule',
  'queueInfo',
  'workers',
  'groupStats',
  'gateStates',
] as const;

export type RequestName = (typeof REQUEST_NAMES)[number];
