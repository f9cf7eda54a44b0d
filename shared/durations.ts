/**
 * Human durations and rates as people type them (`30s`, `1h30m`, `10/min`), for the CLI and the
 * dashboard's forms. JSON always carries milliseconds; these only translate at the edge.
 */
import type { RateLimit } from './domain.ts';
import { LIMITS } from './limits.ts';

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  m: 60_000,
  min: 60_000,
  h: 3600_000,
  d: 86_400_000,
};

const BARE_NUMBER = /^\d+(?:\.\d+)?$/;
const PART = /(\d+(?:\.\d+)?)(ms|sec|min|s|m|h|d)/y;

/**
 * Parses `500ms`, `30s`, `5m`, `2h`, `1d` and compounds like `1h30m`. Returns null when the text
 * is not a duration. A bare number is not one (`--timeout 600` meant seconds to its writer and
 * milliseconds to the parser); only `0` is, having no unit to get wrong.
 */
export function parseDuration(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (t === '0') return 0;
  if (t === '' || BARE_NUMBER.test(t)) return null;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < t.length) {
    const at = PART.lastIndex;
    const m = PART.exec(t);
    if (!m || m.index !== at) return null;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  return Number.isFinite(total) ? Math.round(total) : null;
}

/** Why `text` is not a duration, in words that say what to write instead (`"…" ` goes first). */
export function durationProblem(text: string): string {
  const t = text.trim();
  if (BARE_NUMBER.test(t)) return `has no unit; write ${t}s, ${t}m or ${t}ms`;
  return 'is not a duration; use forms like 500ms, 30s, 5m, 2h, 1d or 1h30m';
}

const PARTS = [
  ['d', 86_400_000],
  ['h', 3600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
] as const;

/**
 * `90000` -> `1m30s`, `1500` -> `1s500ms`, `0` -> `0ms`: every part, so parseDuration reads back
 * the same milliseconds. For values someone set (timeouts, schedules, gates), where a rounded
 * figure would misstate the setting or, put back in a form, change it.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  let rest = Math.round(Math.abs(ms));
  if (rest === 0) return '0ms';
  let out = ms < 0 ? '-' : '';
  for (const [unit, size] of PARTS) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return out;
}

/**
 * `90412` -> `1m30s`: at most the two largest parts, in whole seconds from 1 s up. For measured
 * times and countdowns (took, ago, in), where milliseconds are noise.
 */
export function formatElapsed(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of PARTS.slice(0, 3)) {
    if (rest >= size / 1000) {
      parts.push(`${Math.floor(rest / (size / 1000))}${unit}`);
      rest %= size / 1000;
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest}s`);
  return parts.slice(0, 2).join('');
}

const PERIOD_WORDS: Record<string, number> = {
  s: 1000,
  sec: 1000,
  second: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3600_000,
  hour: 3600_000,
  d: 86_400_000,
  day: 86_400_000,
};

// `day`, `days`, `2 days`, `1.5 hours`: a period in words, as people write one
const WORD_PERIOD = /^(\d+(?:\.\d+)?)?\s*(s|m|h|d|(?:sec|min|second|minute|hour|day)s?)$/;

function periodOf(text: string): number | null {
  const words = WORD_PERIOD.exec(text);
  if (!words) return parseDuration(text);
  const unit = words[2]!;
  const size = PERIOD_WORDS[unit] ?? PERIOD_WORDS[unit.slice(0, -1)]!;
  return Math.round(Number(words[1] ?? 1) * size);
}

/**
 * Parses a rate limit `N/PERIOD`: `10/min`, `5/s`, `100/h`, `5/d`, `30/15min`, `5/2days`. `none`
 * means no limit (returns null). Throws an Error whose message says what is wrong, limits
 * included: the dashboard's form shows it as it is, and `--rate` after its name.
 */
export function parseRate(text: string): RateLimit | null {
  const t = text.trim().toLowerCase();
  if (t === 'none' || t === 'off') return null;
  const m = /^(\d+)\s*\/\s*(.+)$/.exec(t);
  if (!m) throw new Error(`"${text}" is not a rate; write N/PERIOD such as 10/min, 5/s or 30/15min, or none`);
  const limit = Number(m[1]);
  const period = m[2]!.trim();
  const periodMs = periodOf(period);
  if (periodMs === null || periodMs <= 0)
    throw new Error(`"${period}" is not a period; use s, min, h, d or a duration such as 15min`);
  const { maxLimit, maxPeriodMs } = LIMITS.rate;
  if (periodMs > maxPeriodMs)
    throw new Error(
      `the period "${period}" is longer than ${formatDuration(maxPeriodMs)}, the longest a rate has`,
    );
  if (limit < 1) throw new Error('a rate limit must allow at least 1 start per period');
  if (limit > maxLimit)
    throw new Error(`a rate limit allows at most ${maxLimit} starts per period, not ${m[1]}`);
  return { limit, periodMs };
}

// `min`, not `m`: "10/m" leaves a reader to guess; the largest unit first.
const RATE_UNITS = [
  ['d', 86_400_000],
  ['h', 3600_000],
  ['min', 60_000],
  ['s', 1000],
  ['ms', 1],
] as const;

/**
 * `{limit: 10, periodMs: 60000}` -> `10/min`; `30/90s`, `100/100ms`, `5/d`: the period in the
 * largest unit it is a whole number of, so parseRate reads back the same rate.
 */
export function formatRate(rate: RateLimit | null): string {
  if (!rate) return 'none';
  const [unit, size] = RATE_UNITS.find(([, size]) => rate.periodMs % size === 0) ?? ['ms', 1];
  const count = rate.periodMs / size;
  // "/ms" alone is not a period parseRate takes (nor one people write): 5/1ms
  return `${rate.limit}/${count === 1 && unit !== 'ms' ? '' : count}${unit}`;
}
