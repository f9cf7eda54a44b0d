/** Wall-clock time in epoch milliseconds. Passed in so tests can use a fake one. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
