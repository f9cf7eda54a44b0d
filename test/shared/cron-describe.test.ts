import { describe, expect, it } from 'vitest';
import { describeCron } from '../../shared/cron-describe.ts';

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
  ])('%s: %s', (expr, words) => {
    expect(describeCron(expr)).toBe(words);
  });

  it.each(['*/7 9-17 * * 1-5', '0 9 1 * 1', '5-10 * * * *', '0 9 * * 5-1', '0 0 L * *', '0 0 * * * *'])(
    'leaves %s to the expression itself',
    (expr) => {
      expect(describeCron(expr)).toBeNull();
    },
  );
});
