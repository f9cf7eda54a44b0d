import { describe, expect, it } from 'vitest';
import { burstAfter, rateRoom, spacedRate } from '../../electron/core/policy/rate-limit.ts';

const RATE = { limit: 5, periodMs: 1000 };

/**
 * The most starts any `windowMs` window holds when a claim starts whenever the applied rate has
 * room and the configured window too (as the claim checks both: claim-plan.ts).
 */
function busiestWindow(burst: number | null, windowMs: number, spanMs = 6000): number {
  const applied = spacedRate(RATE.limit, RATE.periodMs, burst);
  const starts: number[] = [];
  const room = (rate: typeof RATE, t: number) => {
    const inWindow = starts.filter((s) => s > t - rate.periodMs);
    return rateRoom(rate, inWindow.length, inWindow[0] ?? null, t).room > 0;
  };
  for (let t = 0; t < spanMs; t++) if (room(applied, t) && room(RATE, t)) starts.push(t);
  let most = 0;
  for (const from of starts)
    most = Math.max(most, starts.filter((s) => s >= from && s < from + windowMs).length);
  return most;
}

describe('spaced rates', () => {
  it('spread N per period evenly, or in the bursts asked for, never past the rate', () => {
    expect(spacedRate(5, 1000, null)).toEqual({ limit: 1, periodMs: 200 });
    expect(spacedRate(3, 1000, null)).toEqual({ limit: 1, periodMs: 334 });
    expect(spacedRate(10, 60_000, 4)).toEqual({ limit: 4, periodMs: 24_000 });
    // a burst of the whole limit is the plain window; more than the limit is the limit
    expect(spacedRate(5, 1000, 5)).toEqual({ limit: 5, periodMs: 1000 });
    expect(spacedRate(5, 1000, 50)).toEqual({ limit: 5, periodMs: 1000 });
    // a learned, fractional rate
    expect(spacedRate(3.4, 1000, null)).toEqual({ limit: 1, periodMs: 295 });
    expect(spacedRate(0.5, 1000, 3)).toEqual({ limit: 1, periodMs: 2000 });
    // fast rates start the few due in each 100 ms together, not one per claim
    expect(spacedRate(50, 1000, null)).toEqual({ limit: 5, periodMs: 100 });
    expect(spacedRate(500, 1000, null)).toEqual({ limit: 50, periodMs: 100 });
    expect(spacedRate(25, 1000, null)).toEqual({ limit: 3, periodMs: 120 });
    for (const burst of [null, 1, 2, 3, 5]) expect(busiestWindow(burst, 1000)).toBe(5);
    expect(busiestWindow(null, 200)).toBe(1);
    expect(busiestWindow(2, 10)).toBe(2);
    expect(busiestWindow(3, 10)).toBe(3);
  });

  it('spaces a new rate unless a burst comes with it, and leaves the burst alone otherwise', () => {
    expect(burstAfter({ rate: { limit: 5, periodMs: 1000 } })).toBeNull();
    expect(burstAfter({ rate: { limit: 5, periodMs: 1000 }, burst: 5 })).toBe(5);
    expect(burstAfter({ rate: null })).toBeNull();
    expect(burstAfter({ burst: 2 })).toBe(2);
    expect(burstAfter({})).toBeUndefined();
  });
});
