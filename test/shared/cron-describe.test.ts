import { describe, expect, it } from 'vitest';
import { describeCron } from '../../shared/cron-describe.ts';
import { nextDues } from '../../shared/schedule-times.ts';

describe('a cron expression in plain words', () => {
  it.each([
    ['* * * * *', 'every minute'],
    ['*/5 * * * *', 'every 5 minutes'],
    ['0 * * * *', 'every hour'],
    ['15 * * * *', 'every hour at :15'],
    ['0 */2 * * *', 'every 2 hours'],
    ['30 */6 * * *', 'every 6 hours at :30'],
    ['0 3 * * *', 'every day at 03:00'],
    ['0 9,17 * * *', 'every day at 09:00 and 17:00'],
    ['0 9 * * 1-5', 'at 09:00, Monday to Friday'],
    ['0 9 * * MON-FRI', 'at 09:00, Monday to Friday'],
    ['30 8 * * 1,4', 'at 08:30, Monday and Thursday'],
    ['0 22 * * 0', 'every Sunday at 22:00'],
    ['0 22 * * 7', 'every Sunday at 22:00'],
    ['0 4 1 * *', 'at 04:00 on day 1 of every month'],
    ['0 0 1 1 *', 'at 00:00 on 1 January'],
    ['@daily', 'every day at 00:00'],
    ['@hourly', 'every hour'],
    ['@weekly', 'every Sunday at 00:00'],
    // Steps that do not divide the hour or the day restart at 0: said as the times they hit.
    ['*/45 * * * *', 'at minutes 0 and 45 of every hour'],
    ['*/25 * * * *', 'at minutes 0, 25 and 50 of every hour'],
    ['0 */5 * * *', 'every day at 00:00, 05:00, 10:00, 15:00 and 20:00'],
    ['0 */16 * * *', 'every day at 00:00 and 16:00'],
    ['30 */7 * * *', 'every day at 00:30, 07:30, 14:30 and 21:30'],
    ['*/30 * * * *', 'every 30 minutes'],
    ['0 */8 * * *', 'every 8 hours'],
    // Day 7 is Sunday, as 0 is; repeats are said once.
    ['0 9 * * 0-7', 'every day at 09:00'],
    ['0 9 * * 1-7', 'every day at 09:00'],
    ['0 9 * * 0-6', 'every day at 09:00'],
    ['0 9 * * 0,7', 'every Sunday at 09:00'],
    ['0 9 * * 5,1,5', 'at 09:00, Monday and Friday'],
    ['0 9 * * 0,1,2,3,4,5,6', 'every day at 09:00'],
    ['0 9 1,1 * *', 'at 09:00 on day 1 of every month'],
    ['0 9,9 * * *', 'every day at 09:00'],
  ])('%s: %s', (expr, words) => {
    expect(describeCron(expr)).toBe(words);
  });

  it.each([
    '*/7 * * * *',
    '*/60 * * * *',
    '0 */24 * * *',
    '*/7 9-17 * * 1-5',
    '0 9 1 * 1',
    '5-10 * * * *',
    '0 9 * * 5-1',
    '0 0 L * *',
    '0 0 * * * *',
  ])('leaves %s to the expression itself', (expr) => {
    expect(describeCron(expr)).toBeNull();
  });

  // The describer's claims checked against croner's own next runs (UTC, from a fixed instant).
  const MIN = 60_000;
  const runs = (expr: string) =>
    nextDues({ cron: expr, timezone: 'UTC' }, Date.UTC(2026, 0, 1, 0, 0, 1), 100);
  const hhmm = (t: number) => new Date(t).toISOString().slice(11, 16);
  const EXPRS = [
    ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 20, 25, 30, 40, 45, 59].map((n) => `*/${n} * * * *`),
    ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 23].map((n) => `0 */${n} * * *`),
    ...[2, 5, 7, 12].map((n) => `30 */${n} * * *`),
    '0 9 * * 0-7',
    '0 9 * * 1-7',
    '0 9 * * 0,7',
    '0 9 * * 1-5',
    '0 9,9,17 * * *',
    '15 * * * *',
  ];

  it.each(EXPRS)("%s: the words match croner's next 100 runs", (expr) => {
    const words = describeCron(expr);
    const times = runs(expr);
    expect(times).toHaveLength(100);
    const gaps = times.slice(1).map((t, i) => (t - times[i]!) / MIN);
    if (words === null) return;
    let m: RegExpExecArray | null;
    if (words === 'every minute') expect(new Set(gaps)).toEqual(new Set([1]));
    else if ((m = /^every (\d+) minutes$/.exec(words)))
      expect(new Set(gaps)).toEqual(new Set([Number(m[1])]));
    else if ((m = /^every (?:(\d+) )?hours?(?: at :(\d\d))?$/.exec(words))) {
      expect(new Set(gaps)).toEqual(new Set([Number(m[1] ?? 1) * 60]));
      expect(new Set(times.map((t) => new Date(t).getUTCMinutes()))).toEqual(new Set([Number(m[2] ?? 0)]));
    } else if ((m = /^at minutes (.+) of every hour$/.exec(words))) {
      const said = m[1]!.split(/, | and /).map(Number);
      expect(new Set(times.map((t) => new Date(t).getUTCMinutes()))).toEqual(new Set(said));
    } else if ((m = /^every day at (.+)$/.exec(words))) {
      const said = m[1]!.split(/, | and /);
      expect(new Set(times.map(hhmm))).toEqual(new Set(said));
      // Every day: each of the first few days has every listed time.
      const days = new Set(times.map((t) => new Date(t).getUTCDay()));
      if (times.length / said.length >= 7) expect(days.size).toBe(7);
    } else if ((m = /^at (\d\d:\d\d), (\w+) to (\w+)$/.exec(words))) {
      const names = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
      const [a, b] = [names.indexOf(m[2]!), names.indexOf(m[3]!)];
      const said = new Set(names.map((_, i) => i).filter((d) => d >= a && d <= b));
      expect(new Set(times.map((t) => new Date(t).getUTCDay()))).toEqual(said);
      expect(new Set(times.map(hhmm))).toEqual(new Set([m[1]]));
    } else if ((m = /^every (\w+) at (\d\d:\d\d)$/.exec(words))) {
      const names = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
      expect(new Set(times.map((t) => new Date(t).getUTCDay()))).toEqual(new Set([names.indexOf(m[1]!)]));
      expect(new Set(times.map(hhmm))).toEqual(new Set([m[2]]));
    } else throw new Error(`no check for the words "${words}"`);
  });
});
