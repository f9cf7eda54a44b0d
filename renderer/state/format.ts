/** Times and numbers as people read them: relative times, human durations, grouped digits. */

const numberFormat = new Intl.NumberFormat();

export function formatCount(n: number): string {
  return numberFormat.format(n);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** `850 ms`, `1.2 s`, `3 min 20 s`, `2 h 5 min`. */
export function humanDuration(ms: number): string {
  if (ms < 0) ms = 0;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  const totalSeconds = Math.round(ms / 1000);
  if (totalSeconds < 3600) {
    const m = Math.floor(totalSeconds / 60);
    const s = totalSeconds % 60;
    return s ? `${m} min ${s} s` : `${m} min`;
  }
  const totalMinutes = Math.round(ms / 60_000);
  if (totalMinutes < 24 * 60) {
    const h = Math.floor(totalMinutes / 60);
    const m = totalMinutes % 60;
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const d = Math.floor(totalMinutes / (24 * 60));
  const h = Math.floor((totalMinutes % (24 * 60)) / 60);
  return h ? `${d} d ${h} h` : `${d} d`;
}

/** `just now`, `3 min ago`, `in 5 min`, `2 d ago`. */
export function relativeTime(at: number, now: number): string {
  const diff = at - now;
  const abs = Math.abs(diff);
  if (abs < 5000) return 'just now';
  // Each unit is used while it rounds below the next one, so 59.9 minutes reads "1 h", not "60 min".
  let text: string;
  if (Math.round(abs / 1000) < 60) text = `${Math.round(abs / 1000)} s`;
  else if (Math.round(abs / 60_000) < 60) text = `${Math.round(abs / 60_000)} min`;
  else if (Math.round(abs / 3600_000) < 24) text = `${Math.round(abs / 3600_000)} h`;
  else text = `${Math.round(abs / 86_400_000)} d`;
  return diff < 0 ? `${text} ago` : `in ${text}`;
}

export function exactTime(at: number): string {
  return new Date(at).toLocaleString();
}

/** `per second`, `per minute`, `per hour`, or `per 15 min`. */
export function perPeriod(periodMs: number): string {
  if (periodMs === 1000) return 'per second';
  if (periodMs === 60_000) return 'per minute';
  if (periodMs === 3600_000) return 'per hour';
  if (periodMs === 86_400_000) return 'per day';
  return `per ${humanDuration(periodMs)}`;
}

/** The first line of an error, bounded, for one-line lists. */
export function firstLine(text: string | null, max = 160): string {
  if (!text) return '';
  const line = text.split('\n', 1)[0]!.trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const zonedFormats = new Map<string, Intl.DateTimeFormat>();

/** `Tue, 3 Dec 2026, 03:00` in `timeZone` (this machine's when omitted); seconds when asked. */
export function dateTimeIn(at: number, timeZone?: string, seconds = false): string {
  const key = `${timeZone ?? ''}|${seconds}`;
  let f = zonedFormats.get(key);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat(undefined, {
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: seconds ? '2-digit' : undefined,
        timeZone,
      });
    } catch {
      // An unknown zone (the server knows a newer zone list): show this machine's time instead.
      return dateTimeIn(at, undefined, seconds);
    }
    zonedFormats.set(key, f);
  }
  return f.format(at);
}

/**
 * A chart axis label: short enough for the axis's width (`1.2k`, not `1200.0000`), exact enough
 * for small rates (`0.05`, `0.004`).
 */
export function axisNumber(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 10_000) return `${Math.round(n / 1000)}k`;
  if (abs >= 1000) return `${Number((n / 1000).toFixed(1))}k`;
  if (abs >= 0.01 || abs === 0) return String(Number(n.toFixed(2)));
  return String(Number(n.toPrecision(1)));
}

/** `22:14:05`: a time of today, as a "numbers as of" stamp. */
export function clockTime(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
