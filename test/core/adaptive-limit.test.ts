import { describe, expect, it } from 'vitest';
import {
  adapt,
  effectiveLimits,
  initialState,
  isLowered,
  type AdaptiveCaps,
  type AdaptiveState,
} from '../../electron/core/policy/adaptive-limit.ts';

const caps: AdaptiveCaps = { concurrency: 8, rate: { limit: 50, periodMs: 1000 } };

/**
 * A vendor as nginx's limit_req with burst 0: a request closer than 1/limit s to the last one it
 * let through gets 429. The queue starts at the effective spacing; each request reaches the vendor
 * 0-`jitter` ms later (a loaded machine) and its answer 20 ms after that.
 */
function simulate(limitAt: (t: number) => number, jitter: number, durationMs: number) {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let s = initialState({ concurrency: null, rate: caps.rate });
  const c: AdaptiveCaps = { concurrency: null, rate: caps.rate };
  let lastLetThrough = -Infinity;
  const answers: { at: number; ok: boolean }[] = [];
  const sent: { at: number; ok: boolean }[] = [];
  const rateAt: number[] = [];
  for (let t = 0; t < durationMs; t += 5) {
    for (const a of answers.filter((x) => x.at <= t))
      s = adapt(s, c, { successes: a.ok ? 1 : 0, throttles: a.ok ? 0 : 1 }, t);
    answers.splice(0, answers.length, ...answers.filter((x) => x.at > t));
    // the claim: as many as the applied window has room for (a few at once above 10/s)
    const rate = effectiveLimits(s, c).rate!;
    let room = rate.limit - sent.filter((x) => x.at > t - rate.periodMs).length;
    for (; room > 0; room--) {
      const arrives = t + random() * jitter;
      const ok = arrives - lastLetThrough >= 1000 / limitAt(t);
      if (ok) lastLetThrough = arrives;
      sent.push({ at: t, ok });
      answers.push({ at: arrives + 20, ok });
    }
    if (t % 1000 === 0) rateAt.push(s.rate!);
    expect(s.rate!).toBeLessThanOrEqual(50);
    expect(s.rate!).toBeGreaterThanOrEqual(1);
  }
  const between = (from: number, to: number) => {
    const w = sent.filter((x) => x.at >= from && x.at < to);
    const ok = w.filter((x) => x.ok).length;
    return { okPerS: ok / ((to - from) / 1000), throttled: (w.length - ok) / w.length };
  };
  return { between, rateAt };
}

describe('the adaptive limit', () => {
  it('starts at the caps and spaces the rate evenly', () => {
    const s = initialState(caps);
    expect(s).toMatchObject({ concurrency: 8, rate: 50, ceiling: null });
    expect(effectiveLimits(s, caps)).toEqual({ concurrency: 8, rate: { limit: 5, periodMs: 100 } });
    expect(isLowered(s, caps)).toBe(false);
    // 3 per second is one start every 334 ms: no 1 s window ever holds four
    expect(effectiveLimits({ ...s, rate: 3 }, caps).rate).toEqual({ limit: 1, periodMs: 334 });
  });

  it('cuts both on a throttle, once per hold-off, never below 1', () => {
    let s = adapt(initialState(caps), caps, { successes: 3, throttles: 1 }, 10_000);
    expect(s).toMatchObject({ concurrency: 5.6, rate: 35, ceiling: 50, decreasedAt: 10_000 });
    expect(isLowered(s, caps)).toBe(true);
    // answers to requests sent before the cut
    expect(adapt(s, caps, { successes: 0, throttles: 5 }, 10_500)).toEqual(s);
    s = adapt(s, caps, { successes: 0, throttles: 1 }, 11_000);
    expect(s.rate).toBeCloseTo(24.5);
    let t = 11_000;
    for (let i = 0; i < 40; i++) s = adapt(s, caps, { successes: 0, throttles: 1 }, (t += 5000));
    expect(s.concurrency).toBe(1);
    expect(s.rate).toBe(1);
    expect(effectiveLimits(s, caps)).toEqual({ concurrency: 1, rate: { limit: 1, periodMs: 1000 } });
  });

  it('grows on successes only, slowly near the rate that was throttled, never above the caps', () => {
    const cut: AdaptiveState = { concurrency: 2, rate: 10, ceiling: 11, decreasedAt: 0, grownAt: 0 };
    // idle: nothing grows
    expect(adapt(cut, caps, { successes: 0, throttles: 0 }, 60_000)).toEqual(cut);
    const near = adapt(cut, caps, { successes: 2, throttles: 0 }, 2000);
    expect(near.rate).toBeCloseTo(10.2); // 1% a second, 2 s
    expect(near.concurrency).toBe(3); // +1 per window of successes
    const far = adapt({ ...cut, ceiling: null }, caps, { successes: 1, throttles: 0 }, 2000);
    expect(far.rate).toBeCloseTo(12); // 10% a second
    // a long quiet stretch is no leap
    expect(adapt({ ...cut, ceiling: null }, caps, { successes: 1, throttles: 0 }, 60_000).rate).toBeCloseTo(
      12,
    );
    let s: AdaptiveState = { ...cut, ceiling: null };
    for (let t = 1000; t < 120_000; t += 500) s = adapt(s, caps, { successes: 4, throttles: 0 }, t);
    expect(s).toMatchObject({ concurrency: 8, rate: 50 });
  });

  it('keeps what it learned within lowered caps', () => {
    const s: AdaptiveState = { concurrency: 6, rate: 30, ceiling: 31, decreasedAt: 0, grownAt: 0 };
    const lower: AdaptiveCaps = { concurrency: 4, rate: { limit: 20, periodMs: 1000 } };
    expect(effectiveLimits(s, lower)).toEqual({ concurrency: 4, rate: { limit: 2, periodMs: 100 } });
  });

  it('finds a 4/s limit it was not told: under 5% throttled, at least 80% of the limit', () => {
    for (const jitter of [5, 30]) {
      const { between } = simulate(() => 4, jitter, 80_000);
      const steady = between(20_000, 80_000);
      expect(steady.throttled).toBeLessThan(0.05);
      expect(steady.okPerS).toBeGreaterThanOrEqual(3.2);
    }
  });

  it('follows a limit that drops from 10/s to 2/s and recovers, within 10 s down and 40 s up', () => {
    const { rateAt } = simulate((t) => (t < 30_000 ? 10 : t < 60_000 ? 2 : 10), 30, 120_000);
    expect(Math.max(...rateAt.slice(20, 30))).toBeLessThan(12);
    expect(Math.max(...rateAt.slice(40, 60))).toBeLessThan(2.6);
    // back near the limit, a jittered request now and then refused and cut for (0.7 of ~8.5)
    expect(Math.min(...rateAt.slice(100, 120))).toBeGreaterThan(5.5);
  });
});
