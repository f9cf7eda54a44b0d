/**
 * croner's error messages in the words of a 5-field cron user: croner speaks of its own internals
 * ("configuration entry 5", "six, or seven parts", a month counted from 0), which read as a bug
 * to someone who typed `0 9 * 13 *`. Pure; the field and the value are taken from what was typed.
 */

const FIELDS = ['minute', 'hour', 'day', 'month', 'weekday'] as const;
const RANGES: Record<(typeof FIELDS)[number], [number, number]> = {
  minute: [0, 59],
  hour: [0, 23],
  day: [1, 31],
  month: [1, 12],
  weekday: [0, 7],
};
const SHORTCUTS = '@hourly, @daily, @weekly, @monthly or @yearly';

function fieldIndex(name: string): number {
  const lower = name.toLowerCase();
  const named = FIELDS.indexOf(lower as (typeof FIELDS)[number]);
  if (named >= 0) return named;
  if (lower.startsWith('day')) return lower.includes('week') ? 4 : 2;
  return -1;
}

/** One line saying what is wrong with `expr`, from croner's `message` about it. */
export function cronWords(message: string, expr: string): string {
  const raw = message.replace(/^CronPattern:\s*/, '');
  const parts = expr.trim().split(/\s+/);
  if (parts[0]?.startsWith('@') && /configuration format|nickname|parts/i.test(raw))
    return `unknown shortcut "${parts[0]}" (use ${SHORTCUTS})`;
  const invalid = /Invalid value for ([a-z-]+)/i.exec(raw);
  if (invalid) {
    const i = fieldIndex(invalid[1]!);
    const field = FIELDS[i];
    if (field) {
      const [lo, hi] = RANGES[field];
      const bad = (parts[i]?.match(/\d+/g) ?? []).map(Number).find((n) => n < lo || n > hi);
      return `invalid ${field}: ${bad ?? parts[i] ?? '?'} (${lo}-${hi})`;
    }
  }
  const entry = /configuration entry (\d+) \(([^)]*)\)/i.exec(raw);
  if (entry) {
    const field = FIELDS[Number(entry[1]) - 1];
    const typed = field ? parts[Number(entry[1]) - 1] : entry[2];
    return `the ${field ?? 'field'} "${typed}" has characters cron does not know`;
  }
  if (/is empty/i.test(raw)) return 'a field is empty (two commas in a row?)';
  const step = /illegal stepping: (\S+)/i.exec(raw);
  if (step) return `a step must be a whole number of 1 or more, not "${step[1]}"`;
  const range = /illegal range: '?([^']+)'?/i.exec(raw);
  if (range) return `"${range[1]}" is not a range (write from-to, e.g. 1-5)`;
  // Anything else: croner's words, but never its six- and seven-part talk.
  if (/six|seven|parts/i.test(raw)) return 'it needs 5 fields';
  return raw;
}
