import { describe, expect, it } from 'vitest';
import { cronProblem } from '../../shared/schedule-times.ts';

describe('cron errors in a cron user’s words', () => {
  it.each([
    ['61 * * * *', 'invalid minute: 61 (0-59)'],
    ['0 25 * * *', 'invalid hour: 25 (0-23)'],
    ['0 9 * 13 *', 'invalid month: 13 (1-12)'],
    ['0 9 * * MON-XYZ', 'the weekday "MON-XYZ" has characters cron does not know'],
    ['*/0 * * * *', 'a step must be a whole number of 1 or more, not "0"'],
    ['1-2-3 * * * *', '"1-2-3" is not a range (write from-to, e.g. 1-5)'],
    ['5,,6 * * * *', 'a field is empty (two commas in a row?)'],
    ['@often', 'unknown shortcut "@often" (use @hourly, @daily, @weekly, @monthly or @yearly)'],
    ['* * * *', 'it has 4 fields'],
  ])('%s: %s', (expr, words) => {
    expect(cronProblem(expr)).toBe(words);
    expect(cronProblem(expr)).not.toMatch(/six|seven|configuration|CronPattern/);
  });

  it('accepts what is valid', () => {
    expect(cronProblem('0 9 * * 1-5')).toBeNull();
    expect(cronProblem('@daily')).toBeNull();
  });
});
