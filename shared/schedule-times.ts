/**
 * When a schedule comes due. Cron parsing and time-zone arithmetic (DST gaps and repeats, month
 * ends) are croner's, used in its strict 5-field mode; intervals are plain arithmetic from an
 * anchor. Pure: the engine, the CLI and the dashboard's preview all call this.
 */
import { Cron } from 'croner';
import { cronWords } from './cron-words.ts';

export type Recurrence =
  | { cron: string; timezone: string | null; everyMs?: undefined }
  | { everyMs: number; anchor: number; cron?: undefined };

/** The machine's zone, used when a cron schedule names none. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function cronOf(expr: string, timezone: string | null): Cron {
  return new Cron(expr, { mode: '5-part', paused: true, timezone: timezone ?? localTimeZone() });
}

/** Null when the expression is fine, else why not (croner's message in a cron user's words). */
export function cronProblem(expr: string): string | null {
  // Counted here: croner's own words for a wrong count speak of six- and seven-part patterns,
  // which its 5-part mode then refuses too.
  const parts = expr.trim().split(/\s+/).filter(Boolean);
  if (!parts[0]?.startsWith('@') && parts.length !== 5)
    return `it has ${parts.length} field${parts.length === 1 ? '' : 's'}`;
  try {
    const c = cronOf(expr, 'UTC');
    if (c.nextRun() === null) return 'never comes due';
    return null;
  } catch (err) {
    return cronWords((err as Error).message, expr);
  }
}

/** The first due time strictly after `after`, or null if there is none. */
export function nextDue(r: Recurrence, after: number): number | null {
  if (r.everyMs !== undefined) {
    if (after < r.anchor) return r.anchor;
    return r.anchor + (Math.floor((after - r.anchor) / r.everyMs) + 1) * r.everyMs;
  }
  const d = cronOf(r.cron, r.timezone).nextRun(new Date(after));
  return d ? d.getTime() : null;
}

/** The next `count` due times strictly after `after`. */
export function nextDues(r: Recurrence, after: number, count: number): number[] {
  const out: number[] = [];
  let t = after;
  while (out.length < count) {
    const n = nextDue(r, t);
    if (n === null) break;
    out.push(n);
    t = n;
  }
  return out;
}

/**
 * Due times in [from, to], the latest `max` of them (oldest first), and how many there were in
 * all. `from` is a stored due time, so the walk starts on the schedule's own grid.
 */
export function duesBetween(
  r: Recurrence,
  from: number,
  to: number,
  max: number,
): { times: number[]; total: number } {
  if (from > to) return { times: [], total: 0 };
  if (r.everyMs !== undefined) {
    const total = Math.floor((to - from) / r.everyMs) + 1;
    const times: number[] = [];
    for (let k = Math.max(0, total - max); k < total; k++) times.push(from + k * r.everyMs);
    return { times, total };
  }
  // previousRuns is exclusive of its reference: step 1 ms past `to` so a due time at `to` counts.
  const back = cronOf(r.cron, r.timezone)
    .previousRuns(max + 1, new Date(to + 1))
    .map((d) => d.getTime())
    .filter((t) => t >= from)
    .reverse();
  if (back.length <= max) {
    // All of them are in view unless `from` itself was older than what we walked back to.
    return { times: back, total: back.length };
  }
  // More than `max`: count the rest forward (bounded work: at most a year of minutes).
  let total = 0;
  let t: number | null = from;
  const first = back[1]!;
  while (t !== null && t < first && total < 600_000) {
    total++;
    t = nextDue(r, t);
  }
  return { times: back.slice(1), total: total + max };
}
