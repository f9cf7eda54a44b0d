/**
 * Wall-clock time in epoch milliseconds: the shared timeline of the file (run_at, lease expiry,
 * history). It can step back or forward (NTP, a user fixing the time, waking from sleep). Passed in
 * so tests can use a fake one.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Milliseconds from an arbitrary origin that never steps: only differences mean anything, and only
 * inside one process. Used to measure how long this process has itself waited (a backoff, a lease
 * left unrenewed), so a wall-clock step cannot shorten either. The monotonic clock stops while the
 * machine sleeps on Linux and macOS, so a wait measured with it can only come out longer.
 */
export interface MonotonicClock {
  now(): number;
}

/**
 * performance.now()'s clock (uv_hrtime, CLOCK_MONOTONIC on Linux) from another origin, read
 * without the `performance` global: its first use loads perf_hooks, nine modules, at every start.
 */
export function monotonicMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}

export const systemMonotonic: MonotonicClock = { now: monotonicMs };
