/**
 * A 5-field cron expression in plain words for the common shapes ("every 5 minutes", "every day
 * at 03:00", "at 09:00, Monday to Friday"); null for anything else, where the expression itself
 * is shown. Pure; reads the expression only (croner has parsed it already when a schedule exists).
 */

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const SHORTCUTS: Record<string, string> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
};

const NUM = /^\d{1,2}$/;

/**
 * A field of plain numbers (or names), single or comma-separated, sorted and without repeats
 * ("1,1" is day 1 once); null for steps and ranges.
 */
function numbers(field: string, names: string[] = [], offset = 0): number[] | null {
  const out = new Set<number>();
  for (const part of field.toLowerCase().split(',')) {
    const named = names.indexOf(part);
    if (named >= 0) out.add(named + offset);
    else if (NUM.test(part)) out.add(Number(part));
    else return null;
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * The values a `*\/N` (or `0/N`) field takes below `size`, counted from 0 as croner does; null
 * when the field is no such step. A step that does not divide `size` restarts at 0, so its last
 * gap is shorter ("*\/45" runs at :00 and :45): only a dividing step is a steady "every N".
 */
function stepValues(field: string, size: number): number[] | null {
  const step = /^(?:\*|0)\/(\d+)$/.exec(field);
  if (!step) return null;
  const n = Number(step[1]);
  if (n < 1 || n >= size) return null;
  const out: number[] = [];
  for (let v = 0; v < size; v += n) out.push(v);
  return out;
}

/** The step when the field repeats evenly (every N with N dividing `size`), else null. */
function evenStep(values: number[], size: number): number | null {
  const n = values.length > 1 ? values[1]! - values[0]! : size;
  return size % n === 0 ? n : null;
}

function list(words: string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * "Monday to Friday", "Monday and Thursday", "Sunday", "every day"; null for what reads no
 * better in words. Day 7 is Sunday, as 0 is, so "0-7" is every day and "0,7" is Sunday once.
 */
function weekdays(field: string): string | null {
  const range = /^(\w+)-(\w+)$/.exec(field.toLowerCase());
  if (range) {
    const [a, b] = [range[1]!, range[2]!].map((x) => (NUM.test(x) ? Number(x) : DAY_NAMES.indexOf(x)));
    if (a === undefined || b === undefined || a < 0 || b < 0 || a > 7 || b > 7 || a >= b) return null;
    if (b - a >= 6) return 'every day';
    return `${DAYS[a % 7]} to ${DAYS[b % 7]}`;
  }
  const listed = numbers(field, DAY_NAMES);
  if (!listed || listed.some((d) => d > 7)) return null;
  const days = [...new Set(listed.map((d) => d % 7))].sort((x, y) => x - y);
  if (days.length === 7) return 'every day';
  return list(days.map((d) => DAYS[d]!));
}

export function describeCron(expr: string): string | null {
  const trimmed = expr.trim();
  const fields = (SHORTCUTS[trimmed.toLowerCase()] ?? trimmed).split(/\s+/);
  if (fields.length !== 5) return null;
  const [min, hour, dom, month, dow] = fields as [string, string, string, string, string];
  const everyDay = dom === '*' && month === '*' && dow === '*';

  // Minutes and hours that repeat.
  if (hour === '*' && everyDay) {
    if (min === '*') return 'every minute';
    const stepped = stepValues(min, 60);
    if (stepped) {
      const n = evenStep(stepped, 60);
      if (n !== null) return n === 1 ? 'every minute' : `every ${n} minutes`;
      // Listed only while the list stays short enough to read.
      return stepped.length <= 6 ? `at minutes ${list(stepped.map(String))} of every hour` : null;
    }
    const m = numbers(min);
    if (m?.length === 1 && m[0]! < 60) return m[0] === 0 ? 'every hour' : `every hour at :${two(m[0]!)}`;
    return null;
  }
  const mins = numbers(min);
  if (!mins || mins.length !== 1 || mins[0]! > 59) return null;
  const hourSteps = stepValues(hour, 24);
  const hourStep = hourSteps && evenStep(hourSteps, 24);
  if (hourStep && everyDay) {
    const at = mins[0] === 0 ? '' : ` at :${two(mins[0]!)}`;
    return hourStep === 1 ? `every hour${at}` : `every ${hourStep} hours${at}`;
  }
  // A step that does not divide the day ("*\/5": 20:00 then 00:00) is said as its hours.
  const hours = hourSteps ?? numbers(hour);
  if (!hours || hours.some((h) => h > 23)) return null;
  const times = list(hours.map((h) => `${two(h)}:${two(mins[0]!)}`));

  if (everyDay) return `every day at ${times}`;
  if (dom === '*' && month === '*') {
    const days = weekdays(dow);
    if (!days) return null;
    if (days === 'every day') return `every day at ${times}`;
    return /^\w+$/.test(days) ? `every ${days} at ${times}` : `at ${times}, ${days}`;
  }
  if (dow === '*') {
    const d = numbers(dom);
    if (!d || d.some((x) => x < 1 || x > 31)) return null;
    const dayWords = list(d.map(String));
    if (month === '*') return `at ${times} on day ${dayWords} of every month`;
    const m = numbers(month, MONTH_NAMES, 1);
    if (!m || m.some((x) => x < 1 || x > 12)) return null;
    return `at ${times} on ${list(d.map((x) => m.map((mo) => `${x} ${MONTHS[mo - 1]}`)).flat())}`;
  }
  return null;
}
