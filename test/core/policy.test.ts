import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, nextDelay } from '../../electron/core/policy/backoff.ts';
import { decideAfterFailure } from '../../electron/core/policy/outcome.ts';
import { rateRoom } from '../../electron/core/policy/rate-limit.ts';
import { canTransition, nextStatuses } from '../../shared/transitions.ts';

const policy = { baseMs: 1000, capMs: 8000, floorMs: 100, maxRetryAfter: 2 };

describe('backoff', () => {
  it.each([
    [1, 1, 1000],
    [2, 1, 2000],
    [3, 1, 4000],
    [4, 1, 8000],
    [10, 1, 8000], // capped
    [3, 0, 100], // full jitter, but never below the floor
    [3, 0.5, 2050],
  ])('attempt %i with random %d waits %i ms', (attempt, r, ms) => {
    expect(nextDelay(attempt, policy, () => r)).toBe(ms);
  });

  it('spreads retries of tasks that failed together', () => {
    let seed = 1;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const delays = Array.from({ length: 100 }, () => nextDelay(3, DEFAULT_BACKOFF, random));
    expect(new Set(delays).size).toBeGreaterThan(90);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(DEFAULT_BACKOFF.floorMs);
  });
});

describe('what happens after a failed attempt', () => {
  const now = 1_000_000;
  const r = () => 1;
  const task = (attempts: number, maxAttempts = 3, retryAfterCount = 0) => ({
    attempts,
    maxAttempts,
    retryAfterCount,
  });

  it('retries after the backoff while attempts remain, then fails', () => {
    expect(
      decideAfterFailure(task(1), { type: 'error', permanent: false, retryAfterMs: null }, now, policy, r),
    ).toEqual({
      status: 'retrying',
      outcome: 'retry',
      runAt: now + 1000,
    });
    expect(
      decideAfterFailure(task(3), { type: 'error', permanent: false, retryAfterMs: null }, now, policy, r),
    ).toEqual({
      status: 'failed',
      outcome: 'failed',
    });
  });

  it('fails a permanent error at once', () => {
    expect(
      decideAfterFailure(task(1, 9), { type: 'error', permanent: true, retryAfterMs: null }, now, policy, r)
        .status,
    ).toBe('failed');
  });

  it('waits out a Retry-After and blocks the group, even on the last attempt, up to its own cap', () => {
    expect(
      decideAfterFailure(task(3), { type: 'error', permanent: false, retryAfterMs: 30_000 }, now, policy, r),
    ).toEqual({
      status: 'retrying',
      outcome: 'retry-after',
      runAt: now + 30_000,
      blockGroupUntil: now + 30_000,
    });
    // past the cap it counts as an ordinary failure, still no sooner than Retry-After
    const capped = decideAfterFailure(
      task(1, 3, 2),
      { type: 'error', permanent: false, retryAfterMs: 30_000 },
      now,
      policy,
      r,
    );
    expect(capped).toEqual({ status: 'retrying', outcome: 'retry', runAt: now + 30_000 });
  });

  it('treats a timeout as a retryable failure and a cancel as final', () => {
    expect(decideAfterFailure(task(1), { type: 'timeout' }, now, policy, r).outcome).toBe('timeout');
    expect(decideAfterFailure(task(1), { type: 'cancelled' }, now, policy, r)).toEqual({
      status: 'cancelled',
      outcome: 'cancelled',
    });
  });
});

describe('sliding-window rate limit', () => {
  it('has room until the window is full, then frees when the oldest start leaves it', () => {
    const rate = { limit: 5, periodMs: 1000 };
    expect(rateRoom(rate, 3, 100, 500)).toEqual({ room: 2, freeAt: null });
    expect(rateRoom(rate, 5, 100, 500)).toEqual({ room: 0, freeAt: 1100 });
  });
});

describe('status transitions', () => {
  it('allows only the listed moves', () => {
    expect(canTransition('claim', 'pending')).toBe(true);
    expect(canTransition('claim', 'done')).toBe(false);
    expect(canTransition('complete', 'pending')).toBe(false);
    expect(canTransition('retryByUser', 'failed')).toBe(true);
    expect(nextStatuses('done')).toEqual([]);
    expect(nextStatuses('running').sort()).toEqual(['cancelled', 'done', 'failed', 'pending', 'retrying']);
  });
});
