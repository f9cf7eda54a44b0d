/**
 * Retry policy. Failures wait an exponentially growing, randomly jittered delay ("full jitter":
 * uniform in [floor, min(cap, base * 2^(n-1))]) so that tasks failing together do not retry
 * together, which is how a 429 storm becomes a ban.
 */
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
  /** never retry sooner than this, even when the jitter draws 0 */
  floorMs: number;
  /** Retry-After reschedules per task that do not use up an attempt; past this they count */
  maxRetryAfter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
  baseMs: 1000,
  capMs: 10 * 60_000,
  floorMs: 250,
  maxRetryAfter: 20,
};

/** Delay before the retry that follows failed attempt number `attempt` (1-based). */
export function nextDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const exp = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  const ceiling = Math.max(policy.floorMs, exp);
  return Math.round(policy.floorMs + random() * (ceiling - policy.floorMs));
}
