/**
 * A row of `groups` as every backend stores it (same column names on each), and the GroupInfo
 * the faces see. Counts are filled in by the caller, which reads them apart.
 */
import { emptyCounts, type GroupInfo, type RateLimit } from '../../../shared/domain.ts';
import { effectiveLimits } from '../policy/adaptive-limit.ts';
import type { ClaimGroup } from '../policy/claim-plan.ts';
import { spacedRate } from '../policy/rate-limit.ts';
import {
  adaptiveCaps,
  adaptiveInfo,
  adaptiveState,
  isAdaptive,
  type AdaptiveColumns,
  type LimitPoint,
} from './adaptive-row.ts';

export interface GroupRow {
  name: string;
  concurrency: number | null;
  rate_limit: number | null;
  rate_period_ms: number | null;
  /** starts allowed at once within the rate; null: evenly spaced */
  rate_burst: number | null;
  /** a flag: boolean on PostgreSQL, 0/1 on SQLite */
  paused: boolean | number;
  blocked_until: number | null;
}

/** What the claim reads of a row: the limits and, for an adaptive group, what it learned. */
export type ClaimGroupRow = GroupRow & Pick<AdaptiveColumns, 'adaptive' | 'eff_concurrency' | 'eff_rate'>;

const rateOf = (g: GroupRow): RateLimit | null =>
  g.rate_limit !== null && g.rate_period_ms !== null
    ? { limit: g.rate_limit, periodMs: g.rate_period_ms }
    : null;

/**
 * The rate the claim applies: evenly spaced (or in bursts the user asked for), at what an
 * adaptive group learned; null without a rate.
 */
export function appliedRate(g: ClaimGroupRow | (GroupRow & Partial<AdaptiveColumns>)): RateLimit | null {
  const rate = rateOf(g);
  if (rate === null) return null;
  // a learned rate is always spaced: its bursts could not be held to a rate that keeps moving
  if (isAdaptive(g)) return effectiveLimits(adaptiveState(g), adaptiveCaps(g)).rate;
  return spacedRate(rate.limit, rate.periodMs, g.rate_burst);
}

/** A groups row as the claim plan reads it: an adaptive group's learned limits, evenly spaced. */
export function claimGroupOf(g: ClaimGroupRow): ClaimGroup {
  const concurrency = isAdaptive(g)
    ? effectiveLimits(adaptiveState(g), adaptiveCaps(g)).concurrency
    : g.concurrency;
  const rate = appliedRate(g);
  const cap = isAdaptive(g) ? null : rateOf(g);
  // where the applied rate is the plain window (a burst of the whole limit), checking it again
  // would only count the same starts twice
  const same = cap !== null && rate !== null && cap.limit === rate.limit && cap.periodMs === rate.periodMs;
  return {
    name: g.name,
    concurrency,
    rate,
    rateCap: same ? null : cap,
    // the start log is kept for the configured period, which `group list` counts
    keepStartsMs: g.rate_period_ms,
    paused: g.paused === true || g.paused === 1,
    blockedUntil: g.blocked_until,
  };
}

/** Starts in a rate window: how many, and the oldest (queue clock). */
export interface StartWindow {
  used: number;
  oldest: number | null;
}

/**
 * A row as the faces see it. `now` is on the clock the row was stamped with; `clockOffset` (the
 * store's clock minus the caller's, PostgreSQL) turns a stored time back into the caller's.
 * `window` counts the starts of the configured period, `applied` those of the applied rate's.
 */
export function groupInfo(
  g: GroupRow & Partial<AdaptiveColumns>,
  at: {
    now: number;
    window: StartWindow;
    applied?: StartWindow;
    clockOffset?: number;
    learned?: readonly LimitPoint[];
  },
): GroupInfo {
  const { now, window, clockOffset = 0, learned = [] } = at;
  // the next start waits for the applied window and for the configured one
  const frees: number[] = [];
  const applied = appliedRate(g);
  const w = at.applied ?? window;
  if (applied !== null && w.used >= applied.limit && w.oldest !== null)
    frees.push(w.oldest + applied.periodMs);
  const cap = rateOf(g);
  if (cap !== null && window.used >= cap.limit && window.oldest !== null)
    frees.push(window.oldest + cap.periodMs);
  return {
    name: g.name,
    concurrency: g.concurrency,
    rate: rateOf(g),
    burst: g.rate_burst,
    paused: g.paused === true || g.paused === 1,
    // a cool-down that has passed is no longer one
    blockedUntil: g.blocked_until !== null && g.blocked_until > now ? g.blocked_until - clockOffset : null,
    counts: emptyCounts(),
    rateUsed: window.used,
    // the oldest start leaving a window frees a place (a lower bound once a limit was lowered)
    rateFreeAt: frees.length > 0 ? Math.max(...frees) - clockOffset : null,
    adaptive: adaptiveInfo(g, learned, clockOffset),
  };
}
