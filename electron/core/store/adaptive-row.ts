/**
 * An adaptive group's learning as every backend stores it: the columns of `groups` it uses (the
 * same names on each), the tally of one tick's outcomes, and what a store writes back after the
 * policy (../policy/adaptive-limit.ts) decided. Learning happens in the transaction that records
 * the outcomes, so every process on the queue shares one learned limit.
 *
 * Times in these columns are on the queue's clock (as `blocked_until`).
 */
import type { AdaptiveInfo, LimitPoint } from '../../../shared/domain.ts';
import {
  adapt,
  effectiveLimits,
  withinCaps,
  type AdaptiveCaps,
  type AdaptiveState,
} from '../policy/adaptive-limit.ts';
import type { Finish } from './task-store.ts';

export type { LimitPoint } from '../../../shared/domain.ts';

export interface AdaptiveColumns {
  /** a flag: boolean on PostgreSQL, 0/1 on SQLite */
  adaptive: boolean | number;
  eff_concurrency: number | null;
  eff_rate: number | null;
  rate_ceiling: number | null;
  adapt_decreased_at: number | null;
  adapt_grown_at: number | null;
  adapt_logged_at: number | null;
  last_throttle_at: number | null;
  last_throttle: string | null;
}

interface CapColumns {
  concurrency: number | null;
  rate_limit: number | null;
  rate_period_ms: number | null;
}

/** The longest vendor's message kept as the last throttle. */
const THROTTLE_CHARS = 300;
/** An unchanged or growing limit is added to the history at most this often. */
export const LOG_EVERY_MS = 5000;

export const isAdaptive = (g: Partial<Pick<AdaptiveColumns, 'adaptive'>>) =>
  g.adaptive === true || g.adaptive === 1;

export const adaptiveCaps = (g: CapColumns): AdaptiveCaps => ({
  concurrency: g.concurrency,
  rate:
    g.rate_limit !== null && g.rate_period_ms !== null
      ? { limit: g.rate_limit, periodMs: g.rate_period_ms }
      : null,
});

/** The learned state of a row; a column never written (just made adaptive) is its cap. */
export function adaptiveState(g: CapColumns & Partial<AdaptiveColumns>): AdaptiveState {
  return withinCaps(
    {
      concurrency: g.eff_concurrency ?? null,
      rate: g.eff_rate ?? null,
      ceiling: g.rate_ceiling ?? null,
      decreasedAt: g.adapt_decreased_at ?? null,
      grownAt: g.adapt_grown_at ?? null,
    },
    adaptiveCaps(g),
  );
}

/** What the faces see, or null for a group that is not adaptive. */
export function adaptiveInfo(
  g: CapColumns & Partial<AdaptiveColumns>,
  history: readonly LimitPoint[],
  clockOffset: number,
): AdaptiveInfo | null {
  if (!isAdaptive(g)) return null;
  const s = adaptiveState(g);
  const e = effectiveLimits(s, adaptiveCaps(g));
  return {
    concurrency: e.concurrency,
    rate: s.rate,
    ceiling: s.ceiling,
    lastThrottleAt: g.last_throttle_at == null ? null : g.last_throttle_at - clockOffset,
    lastThrottle: g.last_throttle ?? null,
    history: history.map((p) => ({ ...p, at: p.at - clockOffset })),
  };
}

interface Tally {
  successes: number;
  throttles: number;
  lastThrottle: string | null;
}

/** One tick's outcomes per group, from the finishes it wrote. */
export class OutcomeTally {
  private readonly byGroup = new Map<string, Tally>();

  add(group: string, f: Finish): void {
    // A success that says the quota is used up holds its group: a throttle, not a success. A
    // throttle past its task's Retry-After budget (outcome `retry`) is still one.
    const throttle =
      f.status === 'done'
        ? f.blockGroupUntil !== undefined
        : f.outcome === 'retry-after' || f.throttled === true;
    if (f.status !== 'done' && !throttle) return;
    const t = this.byGroup.get(group) ?? { successes: 0, throttles: 0, lastThrottle: null };
    if (throttle) {
      t.throttles += 1;
      t.lastThrottle = (
        f.status === 'done' ? 'the quota is used up (a success that holds the group)' : f.error
      ).slice(0, THROTTLE_CHARS);
    } else t.successes += 1;
    this.byGroup.set(group, t);
  }

  get groups(): string[] {
    return [...this.byGroup.keys()];
  }

  of(group: string): Tally | undefined {
    return this.byGroup.get(group);
  }
}

/** The columns to write back after a tick, and the history point to add (if any). */
export type LearnedWrite = Omit<AdaptiveColumns, 'adaptive'> & { point: LimitPoint | null };

/** What an adaptive group's row becomes after its tally at `now` (queue clock). */
export function learn(g: CapColumns & AdaptiveColumns, t: Tally, now: number): LearnedWrite {
  const caps = adaptiveCaps(g);
  const before = adaptiveState(g);
  const s = adapt(before, caps, t, now);
  const cut = s.decreasedAt !== before.decreasedAt;
  const due = g.adapt_logged_at === null || now - g.adapt_logged_at >= LOG_EVERY_MS;
  const e = effectiveLimits(s, caps);
  const point =
    cut || (due && s.grownAt !== before.grownAt)
      ? { at: now, concurrency: e.concurrency, rate: s.rate }
      : null;
  return {
    eff_concurrency: s.concurrency,
    eff_rate: s.rate,
    rate_ceiling: s.ceiling,
    adapt_decreased_at: s.decreasedAt,
    adapt_grown_at: s.grownAt,
    adapt_logged_at: point ? now : g.adapt_logged_at,
    last_throttle_at: t.throttles > 0 ? now : g.last_throttle_at,
    last_throttle: t.throttles > 0 ? t.lastThrottle : g.last_throttle,
    point,
  };
}

/** An adaptive row as a store reads it for learning. */
export type LearningRow = CapColumns & AdaptiveColumns & { name: string };

/**
 * What each adaptive group with outcomes among `applied` (the finishes a tick wrote) learns at
 * `now` (queue clock); `groupOf` names a task's group. Groups without outcomes are left alone.
 */
export function learnFromTick(
  rows: ReadonlyMap<string, LearningRow>,
  groupOf: ReadonlyMap<number, string>,
  applied: readonly Finish[],
  now: number,
): { name: string; write: LearnedWrite }[] {
  const tally = new OutcomeTally();
  for (const f of applied) {
    const group = groupOf.get(f.taskId);
    if (group !== undefined && rows.has(group)) tally.add(group, f);
  }
  return tally.groups.map((name) => ({ name, write: learn(rows.get(name)!, tally.of(name)!, now) }));
}

/**
 * A throttle that named no wait (a 429 without Retry-After, exit 75 alone) on an adaptive group:
 * the lowered limit is the answer for the group, which is not held for Semaforo's guessed default;
 * the throttled task itself still waits it, so a vendor that keeps refusing is not hammered.
 */
export function withoutGuessedWait(f: Finish): Finish {
  if (f.status === 'done' || f.waitGuessed !== true) return f;
  const { blockGroupUntil: _held, waitGuessed: _guessed, ...rest } = f;
  return rest;
}

/** The columns `learn` writes, in the order the stores' UPDATE statements list them. */
export const LEARNED_COLUMNS = [
  'eff_concurrency',
  'eff_rate',
  'rate_ceiling',
  'adapt_decreased_at',
  'adapt_grown_at',
  'adapt_logged_at',
  'last_throttle_at',
  'last_throttle',
] as const satisfies readonly (keyof LearnedWrite)[];

/** The learned columns as a group has them when nothing is learned yet (made adaptive, or reset). */
export const FORGOTTEN: Readonly<Record<(typeof LEARNED_COLUMNS)[number], null>> = {
  eff_concurrency: null,
  eff_rate: null,
  rate_ceiling: null,
  adapt_decreased_at: null,
  adapt_grown_at: null,
  adapt_logged_at: null,
  last_throttle_at: null,
  last_throttle: null,
};
