/**
 * The numbers every boundary checks against, and the list's sort fields: apart from the schemas
 * (schemas.ts), so a screen that only shows them does not load the validator with them.
 */
export const LIMITS = {
  priority: { min: 0, max: 9, default: 5 },
  maxAttempts: { min: 1, max: 100, default: 3 },
  /** 7 days: longer timeouts are almost always a unit mistake */
  timeoutMs: { min: 1, max: 7 * 24 * 3600_000 },
  /** one year */
  delayMs: { max: 365 * 24 * 3600_000 },
  payload: { maxBytes: 256 * 1024, maxDepth: 32 },
  nameLength: 200,
  uniqueLength: 200,
  batch: 100_000,
  globalConcurrency: { min: 1, max: 10_000, default: 3 },
  groupConcurrency: { min: 1, max: 10_000 },
  rate: { minLimit: 1, maxLimit: 1_000_000, minPeriodMs: 1, maxPeriodMs: 24 * 3600_000 },
  retentionDays: { min: 0, max: 36_500, default: 30 },
  /** a named resource's capacity, and a task's weight on one */
  resourceCapacity: { min: 1, max: 1_000_000 },
  /** resources one task may name */
  usesPerTask: 16,
} as const;

/** What the task list can be sorted by. */
export const SORT_FIELDS = ['createdAt', 'priority', 'runAt', 'finishedAt', 'name'] as const;
