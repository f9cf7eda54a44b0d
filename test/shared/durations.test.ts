/** Durations and rates as people read them: settings shown exactly, measured times briefly. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  formatElapsed,
  formatRate,
  parseDuration,
  parseRate,
} from '../../shared/durations.ts';

describe('durations', () => {
  it('shows a setting with every part, so reading it back gives the same milliseconds', () => {
    expect(formatDuration(1500)).toBe('1s500ms');
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(93_784_005)).toBe('1d2h3m4s5ms');
    expect(formatDuration(0)).toBe('0ms');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 * 86_400_000 }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });

  it('shows a measured time in at most two parts, whole seconds from one second up', () => {
    expect(formatElapsed(412)).toBe('412ms');
    expect(formatElapsed(90_412)).toBe('1m30s');
    expect(formatElapsed(93_784_005)).toBe('1d2h');
    expect(formatElapsed(1500)).toBe('2s');
  });

  it('shows a rate with its period spelled plainly, in a form --rate takes back as the same rate', () => {
    const cases: [string, number, string][] = [
      ['10/min', 60_000, '10/min'],
      ['10/m', 60_000, '10/min'],
      ['500/s', 1000, '500/s'],
      ['2/h', 3_600_000, '2/h'],
      ['100/100ms', 100, '100/100ms'],
      ['5/d', 86_400_000, '5/d'],
      ['5/1d', 86_400_000, '5/d'],
      ['30/15m', 900_000, '30/15min'],
      ['30/90s', 90_000, '30/90s'],
      ['7/36min', 2_160_000, '7/36min'],
      // plural words, with or without a count
      ['5/days', 86_400_000, '5/d'],
      ['5/2 hours', 7_200_000, '5/2h'],
      ['10/minutes', 60_000, '10/min'],
      ['3/30seconds', 30_000, '3/30s'],
      ['4/0.5days', 43_200_000, '4/12h'],
      ['5/1ms', 1, '5/1ms'],
    ];
    for (const [typed, periodMs, shown] of cases) {
      const rate = parseRate(typed)!;
      expect(rate, typed).toEqual({ limit: Number(typed.split('/')[0]), periodMs });
      expect(formatRate(rate), typed).toBe(shown);
    }
    expect(formatRate(null)).toBe('none');
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 86_400_000 }),
        (limit, periodMs) => {
          expect(parseRate(formatRate({ limit, periodMs }))).toEqual({ limit, periodMs });
        },
      ),
    );
  });

  it('refuses a rate outside the limits in words that name the period or the count', () => {
    expect(() => parseRate('5/2d')).toThrow('the period "2d" is longer than 1d, the longest a rate has');
    expect(() => parseRate('5/25 hours')).toThrow('the period "25 hours" is longer than 1d');
    expect(() => parseRate('1000001/s')).toThrow(
      'a rate limit allows at most 1000000 starts per period, not 1000001',
    );
    expect(parseRate('1000000/d')).toEqual({ limit: 1_000_000, periodMs: 86_400_000 });
    // "ms" is milliseconds, never minutes with a plural s
    expect(() => parseRate('5/ms')).toThrow('"ms" is not a period');
  });
});
