/**
 * Throttle signals other than an HTTP Retry-After, read into a wait:
 * - a shell command exiting 75 (EX_TEMPFAIL, sysexits.h: "temporary failure, try again later"),
 *   or printing a line `SEMAFORO_RETRY_AFTER=<wait>` (on stdout or stderr; `30`, `30s`, `2m`,
 *   `1h30m`) before it exits with any code but 0;
 * - HTTP quota headers that say the quota is used up: the IETF draft's `RateLimit: ...;r=0;t=30`
 *   (or the older `RateLimit-Remaining: 0` with `RateLimit-Reset`), and the common
 *   `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` (seconds to wait, or a Unix time).
 * Every wait is clamped like a Retry-After (retry-after.ts), so no signal makes a hot loop or a
 * day-long hold.
 */
import { parseDuration } from '../../../shared/durations.ts';
import { RETRY_AFTER_BOUNDS, type RetryAfterBounds } from './retry-after.ts';

/** sysexits.h EX_TEMPFAIL */
export const EX_TEMPFAIL = 75;
export const RETRY_AFTER_MARKER = 'SEMAFORO_RETRY_AFTER=';
/** a line longer than this is not a marker line; its start is all that is kept while it streams */
const MAX_MARKER_LINE = 200;

const clamp = (ms: number, b: RetryAfterBounds) => Math.min(b.maxMs, Math.max(b.minMs, ms));

/** A wait as a script writes it: seconds (`30`, `1.5`) or a duration (`30s`, `2m`, `1h30m`). */
export function parseWait(text: string): number | null {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  return parseDuration(t);
}

/** Finds the last `SEMAFORO_RETRY_AFTER=` line of a stream fed in chunks of any size. */
export class RetryMarker {
  /** the wait of the last marker line seen, in ms (null: none, or unreadable) */
  value: number | null = null;
  /** the text given after the marker, for the error message */
  text: string | null = null;
  private line = '';

  feed(chunk: string): void {
    let from = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', from)) {
      this.take(this.line + chunk.slice(from, nl));
      this.line = '';
      from = nl + 1;
    }
    if (this.line.length < MAX_MARKER_LINE)
      this.line = (this.line + chunk.slice(from)).slice(0, MAX_MARKER_LINE);
  }

  end(): void {
    if (this.line) this.take(this.line);
    this.line = '';
  }

  private take(line: string): void {
    const l = line.replace(/\r$/, '').trim();
    if (!l.startsWith(RETRY_AFTER_MARKER)) return;
    const given = l.slice(RETRY_AFTER_MARKER.length);
    const ms = parseWait(given);
    if (ms === null) return;
    this.value = ms;
    this.text = given;
  }
}

/** How long a shell command that failed asks its group to wait, or null if it asked nothing. */
export function shellThrottle(
  code: number | null,
  marker: { value: number | null; text: string | null },
  bounds: RetryAfterBounds = RETRY_AFTER_BOUNDS,
): { ms: number; why: string; guessed: boolean } | null {
  if (code === 0) return null;
  if (marker.value !== null)
    return { ms: clamp(marker.value, bounds), why: `${RETRY_AFTER_MARKER}${marker.text}`, guessed: false };
  if (code === EX_TEMPFAIL)
    return { ms: bounds.defaultMs, why: `exit ${EX_TEMPFAIL} (EX_TEMPFAIL)`, guessed: true };
  return null;
}

type HeaderGet = (name: string) => string | null;

/** `t=30` of a draft `RateLimit` field (its first item), with its `r`. */
function draftField(value: string): { remaining: number; resetS: number } | null {
  const item = value.split(',')[0]!;
  const r = /;\s*r\s*=\s*(\d+)/.exec(item);
  const t = /;\s*t\s*=\s*(\d+)/.exec(item);
  return r && t ? { remaining: Number(r[1]), resetS: Number(t[1]) } : null;
}

/** Seconds to wait, or a Unix time in seconds (as GitHub sends): told apart by size. */
function resetMs(value: string, now: number): number | null {
  if (!/^\d+(\.\d+)?$/.test(value.trim())) return null;
  const n = Number(value);
  return n > 1e9 ? Math.max(0, n * 1000 - now) : Math.round(n * 1000);
}

/**
 * When a response says the quota is used up (remaining 0) and when it comes back: the wait, and
 * the header that said so. Null when the quota is not used up or no reset is given.
 */
export function quotaExhausted(
  get: HeaderGet,
  now: number,
  bounds: RetryAfterBounds = RETRY_AFTER_BOUNDS,
): { ms: number; why: string } | null {
  const draft = get('ratelimit');
  if (draft !== null) {
    const d = draftField(draft);
    if (d && d.remaining === 0)
      return { ms: clamp(d.resetS * 1000, bounds), why: `RateLimit: ${draft.trim()}` };
  }
  for (const prefix of ['ratelimit', 'x-ratelimit']) {
    const remaining = get(`${prefix}-remaining`);
    const reset = get(`${prefix}-reset`);
    if (remaining === null || reset === null || Number(remaining.trim()) !== 0) continue;
    const ms = resetMs(reset, now);
    if (ms === null) continue;
    const name = prefix === 'ratelimit' ? 'RateLimit' : 'X-RateLimit';
    return { ms: clamp(ms, bounds), why: `${name}-Remaining: 0, ${name}-Reset: ${reset.trim()}` };
  }
  return null;
}
