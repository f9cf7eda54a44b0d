/**
 * How an adaptive group learns the vendor's limit under the caps the user set: AIMD with a
 * remembered ceiling (TCP CUBIC's idea, in two speeds).
 *
 * - A throttle (429/503, exit 75, SEMAFORO_RETRY_AFTER, RetryAfterError) cuts the effective rate
 *   and concurrency to DECREASE of what they were, never below 1. Throttles within HOLDOFF of a
 *   cut answer requests sent before it and are not cut for again.
 * - The rate at the cut is remembered as the ceiling. Successes make the rate grow with time:
 *   fast (GROW_FAR per second) while far from the ceiling, slowly (GROW_NEAR) within NEAR_BAND of
 *   it, where the vendor said no last time; past the band the ceiling is forgotten (the vendor
 *   allows more now). Concurrency grows by 1 per window of successes, as TCP's congestion window.
 * - Nothing grows on a tick without successes: an idle group keeps what it learned.
 *
 * Pure: times are the queue clock's, handed in by the store that records the outcomes.
 */
import type { RateLimit } from '../../../shared/domain.ts';
import { spacedRate } from './rate-limit.ts';

export const ADAPTIVE = {
  decrease: 0.7,
  /** a cut ignores further throttles for this long at least (and two start intervals) */
  holdoffMs: 1000,
  growFarPerS: 0.1,
  growNearPerS: 0.01,
  nearBand: 0.15,
  /** growth per tick is measured over at most this long, so a long idle stretch is no leap */
  maxGrowStepMs: 2000,
} as const;

/**
 * The rate cap of a group made adaptive without one: learning a rate needs a period and a start,
 * and 50 a second is above what most vendors allow one client while below a flood.
 */
export const DEFAULT_RATE_CAP: RateLimit = { limit: 50, periodMs: 1000 };

/** The caps: the group's configured limits. */
export interface AdaptiveCaps {
  concurrency: number | null;
  rate: RateLimit | null;
}

/** What a group has learned, as its row stores it. */
export interface AdaptiveState {
  /** effective concurrency (fractional; the claim uses its floor), null: no concurrency cap */
  concurrency: number | null;
  /** effective starts per cap period (fractional), null: no rate cap */
  rate: number | null;
  /** the rate at the last cut, null: none remembered */
  ceiling: number | null;
  decreasedAt: number | null;
  grownAt: number | null;
}

/** One tick's outcomes of a group's attempts. */
export interface AdaptiveOutcomes {
  successes: number;
  throttles: number;
}

/** Nothing learned yet: the caps themselves. */
export function initialState(caps: AdaptiveCaps): AdaptiveState {
  return {
    concurrency: caps.concurrency,
    rate: caps.rate?.limit ?? null,
    ceiling: null,
    decreasedAt: null,
    grownAt: null,
  };
}

const clampTo = (v: number | null, cap: number | null): number | null =>
  cap === null ? null : Math.min(cap, Math.max(1, v ?? cap));

/** A state cut back to changed caps: what was learned stays, but never above a cap. */
export function withinCaps(s: AdaptiveState, caps: AdaptiveCaps): AdaptiveState {
  return {
    ...s,
    concurrency: clampTo(s.concurrency, caps.concurrency),
    rate: clampTo(s.rate, caps.rate?.limit ?? null),
  };
}

function holdoff(s: AdaptiveState, caps: AdaptiveCaps): number {
  const interval = caps.rate !== null && s.rate !== null ? caps.rate.periodMs / s.rate : 0;
  return Math.max(ADAPTIVE.holdoffMs, 2 * interval);
}

/** The state after one tick's outcomes at `now`. */
export function adapt(
  state: AdaptiveState,
  caps: AdaptiveCaps,
  o: AdaptiveOutcomes,
  now: number,
): AdaptiveState {
  const s = withinCaps(state, caps);
  // a clock stepped back to before the cut: not a reason to stop learning
  const quiet = s.decreasedAt === null || now < s.decreasedAt || now - s.decreasedAt >= holdoff(s, caps);
  if (o.throttles > 0) {
    if (!quiet) return s;
    return {
      concurrency: s.concurrency === null ? null : Math.max(1, s.concurrency * ADAPTIVE.decrease),
      rate: s.rate === null ? null : Math.max(1, s.rate * ADAPTIVE.decrease),
      ceiling: s.rate,
      decreasedAt: now,
      grownAt: now,
    };
  }
  if (o.successes <= 0 || !quiet) return s;
  const next = { ...s, grownAt: now };
  if (s.concurrency !== null && caps.concurrency !== null)
    next.concurrency = Math.min(caps.concurrency, s.concurrency + o.successes / s.concurrency);
  if (s.rate !== null && caps.rate !== null) {
    const dt = Math.min(ADAPTIVE.maxGrowStepMs, Math.max(0, now - (s.grownAt ?? now))) / 1000;
    const near =
      s.ceiling !== null &&
      s.rate >= s.ceiling * (1 - ADAPTIVE.nearBand) &&
      s.rate <= s.ceiling * (1 + ADAPTIVE.nearBand);
    const grown = s.rate * (1 + (near ? ADAPTIVE.growNearPerS : ADAPTIVE.growFarPerS) * dt);
    next.rate = Math.min(caps.rate.limit, grown);
    if (s.ceiling !== null && next.rate > s.ceiling * (1 + ADAPTIVE.nearBand)) next.ceiling = null;
  }
  return next;
}

/**
 * The limits the claim applies: the floor of the effective concurrency, and the effective rate as
 * evenly spaced starts (one per period / rate, rounded up so no window holds more than the rate).
 */
export function effectiveLimits(
  s: AdaptiveState,
  caps: AdaptiveCaps,
): { concurrency: number | null; rate: RateLimit | null } {
  const w = withinCaps(s, caps);
  return {
    concurrency: w.concurrency === null ? caps.concurrency : Math.max(1, Math.floor(w.concurrency)),
    rate: caps.rate === null ? null : spacedRate(w.rate ?? caps.rate.limit, caps.rate.periodMs, null),
  };
}

/** Whether what was learned is below a cap (what "why waiting" and the faces call lowered). */
export function isLowered(s: AdaptiveState, caps: AdaptiveCaps): boolean {
  const e = effectiveLimits(s, caps);
  return (
    (caps.concurrency !== null && e.concurrency !== null && e.concurrency < caps.concurrency) ||
    (s.rate !== null && caps.rate !== null && s.rate < caps.rate.limit)
  );
}
