/**
 * The numbers and name rules every boundary checks against, and the list's sort fields: apart
 * from the schemas (schemas.ts), so a screen that only shows them, or a quick check that stands
 * in for a schema (task-spec-quick.ts), does not load the validator with them.
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
  /** tasks one action by filter may touch: one transaction, not an unbounded one */
  bulk: 100_000,
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

/** A kind, group or schedule name. */
export const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/**
 * A lone UTF-16 surrogate (JSON `"\ud800"` over HTTP or IPC) cannot be stored as UTF-8: SQLite
 * would keep U+FFFD instead, so a name would read back changed and two different unique keys
 * (`k\ud800`, `k\ud801`) would collide. Refused wherever such a string is stored as text.
 */
const LONE_SURROGATE = /\p{Cs}/u;
export const wellFormed = (s: string) => !LONE_SURROGATE.test(s);
