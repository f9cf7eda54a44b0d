/**
 * What an adaptive group learned, in words every face uses (`group list`, `group show`, the
 * dashboard's group view, "why is this waiting"). Pure: from the GroupInfo a face already read.
 */
import type { GroupInfo, RateLimit } from './domain.ts';
import { formatRate } from './durations.ts';

const round = (n: number) => (n >= 10 ? String(Math.round(n)) : String(Math.round(n * 10) / 10));

/** A learned rate per the cap's period: `3.4/s`. */
export function learnedRate(rate: number, cap: RateLimit): string {
  return formatRate({ limit: 1, periodMs: cap.periodMs }).replace(/^1/, round(rate));
}

export interface Learned {
  /** learned running limit, when the group has a concurrency cap */
  concurrency: { now: number; cap: number } | null;
  /** learned rate, when the group has a rate cap */
  rate: { now: number; cap: RateLimit } | null;
  /** below a cap */
  lowered: boolean;
}

/** What `g` learned, or null when it is not adaptive. */
export function learnedOf(g: GroupInfo): Learned | null {
  const a = g.adaptive;
  if (a === null) return null;
  const concurrency =
    g.concurrency !== null && a.concurrency !== null ? { now: a.concurrency, cap: g.concurrency } : null;
  const rate = g.rate !== null && a.rate !== null ? { now: a.rate, cap: g.rate } : null;
  const lowered =
    (concurrency !== null && concurrency.now < concurrency.cap) ||
    (rate !== null && rate.now < rate.cap.limit - 0.05);
  return { concurrency, rate, lowered };
}

/** `2 of 8 running, 3.4/s of 50/s`, or `at its caps` when nothing is lowered. */
export function learnedText(l: Learned): string {
  const parts: string[] = [];
  if (l.concurrency && l.concurrency.now < l.concurrency.cap)
    parts.push(`${l.concurrency.now} of ${l.concurrency.cap} running`);
  if (l.rate && l.rate.now < l.rate.cap.limit - 0.05)
    parts.push(`${learnedRate(l.rate.now, l.rate.cap)} of ${formatRate(l.rate.cap)}`);
  return parts.length === 0 ? 'at its caps' : parts.join(', ');
}
