/** How long an HTTP 429/503 makes a task (and its group) wait. */
export const RETRY_AFTER_BOUNDS = {
  /** when the server gave no usable Retry-After */
  defaultMs: 30_000,
  /** "retry now" is how bans happen: always wait a little */
  minMs: 1000,
  /** a server asking for days is better asked again in an hour than trusted blindly */
  maxMs: 3600_000,
} as const;

export interface RetryAfterBounds {
  defaultMs: number;
  minMs: number;
  maxMs: number;
}

const SECONDS_RE = /^\d+(\.\d+)?$/;
// IMF-fixdate, RFC 850 and asctime all start with a day name; requiring it keeps Date.parse's
// leniency ("1 2" is a date to V8) from turning garbage into a delay.
const DATE_RE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s/i;

/**
 * Parses a Retry-After header (RFC 9110: delay-seconds or an HTTP date) into milliseconds from
 * `now`, or null when absent or unreadable. A date in the past gives 0.
 */
export function parseRetryAfter(header: string | null | undefined, now: number): number | null {
  if (header === null || header === undefined) return null;
  const value = header.trim();
  if (value === '') return null;
  if (SECONDS_RE.test(value)) return Math.round(Number(value) * 1000);
  if (!DATE_RE.test(value)) return null;
  // asctime has no zone but means GMT; V8 would read it as local time.
  const zoned = /\b(GMT|UTC|UT|Z)\b|[+-]\d{4}\b/i.test(value) ? value : `${value} GMT`;
  const at = Date.parse(zoned);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/** The wait to use for a 429/503: the parsed Retry-After, or the default, clamped to the bounds. */
export function retryAfterDelay(
  header: string | null | undefined,
  now: number,
  bounds: RetryAfterBounds = RETRY_AFTER_BOUNDS,
): number {
  const parsed = parseRetryAfter(header, now);
  const ms = parsed ?? bounds.defaultMs;
  return Math.min(bounds.maxMs, Math.max(bounds.minMs, ms));
}
