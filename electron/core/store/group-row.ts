/**
 * A row of `groups` as every backend stores it (same column names on each), and the GroupInfo
 * the faces see. Counts are filled in by the caller, which reads them apart.
 */
import { emptyCounts, type GroupInfo, type RateLimit } from '../../../shared/domain.ts';
import { effectiveLimits } from '../policy/adaptive-limit.ts';
import type { ClaimGroup } from '../policy/claim-plan.ts';
import {
  adaptiveCaps,
  adaptiveInfo,
  adaptiveState,
  type AdaptiveColumns,
  type LimitPoint,
} from './adaptive-row.ts';

export interface GroupRow {
  name: string;
  concurrency: number | null;
  rate_limit: number | null;
  rate_period_ms: number | null;
  /** a flag: boolean on PostgreSQL, 0/1 on SQLite */
  paused: boolean | number;
  blocked_until: number | null;
}

/** What the claim reads of a row: the limits and, for an adaptive group, what it learned. */
export type ClaimGroupRow = GroupRow & Pick<AdaptiveColumns, 'adaptive' | 'eff_concurrency' | 'eff_rate'>;

/**
 * `now` on the clock the row was stamped with; `clockOffset` (the store's clock minus the
 * caller's, PostgreSQL) turns a stored time back into the caller's.
 */
const rateOf = (g: GroupRow): RateLimit | null =>
  g.rate_limit !== null && g.rate_period_ms !== null
    ? { limit: g.rate_limit, periodMs: g.rate_period_ms }
    : null;

/** A groups row as the claim plan reads it: an adaptive group's learned limits, evenly spaced. */
export function claimGroupOf(g: ClaimGroupRow): ClaimGroup {
  const limits =
    g.adaptive === true || g.adaptive === 1
      ? effectiveLimits(adaptiveState(g), adaptiveCaps(g))
      : { concurrency: g.concurrency, rate: rateOf(g) };
  return {
    name: g.name,
    ...limits,
    paused: g.paused === true || g.paused === 1,
    blockedUntil: g.blocked_until,
  };
}

export function groupInfo(
  g: GroupRow & Partial<AdaptiveColumns>,
  now: number,
  window: { used: number; oldest: number | null },
  clockOffset = 0,
  learned: readonly LimitPoint[] = [],
): GroupInfo {
  const full = g.rate_limit !== null && g.rate_period_ms !== null && window.used >= g.rate_limit;
  return {
    name: g.name,
    concurrency: g.concurrency,
    rate: rateOf(g),
    paused: g.paused === true || g.paused === 1,
    // a cool-down that has passed is no longer one
    blockedUntil: g.blocked_until !== null && g.blocked_until > now ? g.blocked_until - clockOffset : null,
    counts: emptyCounts(),
    rateUsed: window.used,
    // the oldest start leaving the window frees a place (a lower bound once a limit was lowered)
    rateFreeAt: full && window.oldest !== null ? window.oldest + g.rate_period_ms! - clockOffset : null,
    adaptive: adaptiveInfo(g, learned, clockOffset),
  };
}
