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

/** A field of plain numbers (or names), single or comma-separated; null for steps and ranges. */
function numbers(field: string, names: string[] = [], offset = 0): number[] | null {
  const out: number[] = [];
  for (const part of field.toLowerCase().split(',')) {
    const named = names.indexOf(part);
    if (named >= 0) out.push(named + offset);
    else if (NUM.test(part)) out.push(Number(part));
    else return null;
  }
  return out;
}

function list(words: string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

const two = (n: number) => String(n).padStart(2, '0');

/** "Monday to Friday", "Monday and Thursday", "Sunday"; null for what reads no better in words. */
function weekdays(field: string): string | null {
  const range = /^(\w+)-(\w+)$/.exec(field.toLowerCase());
  if (range) {
    const [a, b] = [range[1]!, range[2]!].map((x) => (NUM.test(x) ? Number(x) : DAY_NAMES.indexOf(x)));
    if (a === undefined || b === undefined || a < 0 || b < 0 || a > 7 || b > 7 || a >= b) return null;
    return `${DAYS[a % 7]} to ${DAYS[b % 7]}`;
  }
  const days = numbers(field, DAY_NAMES);
  if (!days || days.some((d) => d > 7)) return null;
  return list(days.map((d) => DAYS[d % 7]!));
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
    const step = /^(?:\*|0)\/(\d+)$/.exec(min);
    if (step) return Number(step[1]) === 1 ? 'every minute' : `every ${Number(step[1])} minutes`;
    const m = numbers(min);
    if (m?.length === 1 && m[0]! < 60) return m[0] === 0 ? 'every hour' : `every hour at :${two(m[0]!)}`;
    return null;
  }
  const mins = numbers(min);
  if (!mins || mins.length !== 1 || mins[0]! > 59) return null;
  const hourStep = /^(?:\*|0)\/(\d+)$/.exec(hour);
  if (hourStep && everyDay) {
    const n = Number(hourStep[1]);
    const at = mins[0] === 0 ? '' : ` at :${two(mins[0]!)}`;
    return n === 1 ? `every hour${at}` : `every ${n} hours${at}`;
  }
  const hours = numbers(hour);
  if (!hours || hours.some((h) => h > 23)) return null;
  const times = list(hours.map((h) => `${two(h)}:${two(mins[0]!)}`));

  if (everyDay) return `every day at ${times}`;
  if (dom === '*' && month === '*') {
    const days = weekdays(dow);
    if (!days) return null;
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
