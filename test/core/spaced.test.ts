/** Spaced: at most one run per gap, the last call within a gap run at its end, none after stop. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Spaced } from '../../electron/core/dispatch/spaced.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A Spaced of 200 ms on the (fake) wall clock, and how often it ran. */
function spaced(): { s: Spaced; runs: () => number } {
  let runs = 0;
  const s = new Spaced(
    () => runs++,
    200,
    () => Date.now(),
  );
  return { s, runs: () => runs };
}

describe('Spaced', () => {
  it('runs the first call at once, and the calls within the gap once when it is over', () => {
    const { s, runs } = spaced();
    s.call();
    expect(runs()).toBe(1);
    vi.advanceTimersByTime(50);
    s.call();
    s.call();
    expect(runs()).toBe(1);
    vi.advanceTimersByTime(149);
    expect(runs()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(runs()).toBe(2);
    vi.advanceTimersByTime(1000);
    expect(runs()).toBe(2);
    s.call();
    expect(runs()).toBe(3);
  });

  it('drops the run it was waiting for when stopped', () => {
    const { s, runs } = spaced();
    s.call();
    s.call();
    s.stop();
    vi.advanceTimersByTime(1000);
    expect(runs()).toBe(1);
  });
});
