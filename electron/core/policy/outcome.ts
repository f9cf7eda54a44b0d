import { nextDelay, type BackoffPolicy } from './backoff.ts';

/** Why an attempt did not succeed, as the dispatcher saw it. */
export type Failure =
  | { type: 'error'; permanent: boolean; retryAfterMs: number | null }
  | { type: 'timeout' }
  | { type: 'cancelled' };

export interface FailureDecision {
  status: 'retrying' | 'failed' | 'cancelled';
  outcome: 'failed' | 'retry' | 'retry-after' | 'timeout' | 'cancelled';
  runAt?: number;
  blockGroupUntil?: number;
}

/**
 * What happens to a task after a failed attempt. Pure: the dispatcher hands in the clock and the
 * random source, tests hand in fixed ones.
 * - cancelled by the user: cancelled.
 * - permanent error: failed now, whatever attempts remain.
 * - Retry-After (429/503): wait at least that long, and so does the whole group; it does not use up
 *   an attempt until the task has been rescheduled `maxRetryAfter` times.
 * - anything else (including a timeout): retry after the backoff while attempts remain, else failed.
 */
export function decideAfterFailure(
  task: { attempts: number; maxAttempts: number; retryAfterCount: number },
  failure: Failure,
  now: number,
  policy: BackoffPolicy,
  random: () => number,
): FailureDecision {
  if (failure.type === 'cancelled') return { status: 'cancelled', outcome: 'cancelled' };
  if (failure.type === 'error' && failure.permanent) return { status: 'failed', outcome: 'failed' };
  if (
    failure.type === 'error' &&
    failure.retryAfterMs !== null &&
    task.retryAfterCount < policy.maxRetryAfter
  ) {
    const until = now + Math.max(0, failure.retryAfterMs);
    return { status: 'retrying', outcome: 'retry-after', runAt: until, blockGroupUntil: until };
  }
  const outcome = failure.type === 'timeout' ? 'timeout' : 'failed';
  if (task.attempts >= task.maxAttempts) return { status: 'failed', outcome };
  const delay = nextDelay(task.attempts, policy, random);
  // A Retry-After past its own cap still sets the earliest time.
  const floor = failure.type === 'error' && failure.retryAfterMs !== null ? failure.retryAfterMs : 0;
  return {
    status: 'retrying',
    outcome: outcome === 'timeout' ? 'timeout' : 'retry',
    runAt: now + Math.max(delay, floor),
  };
}
