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
      ['7/36h', 129_600_000, '7/36h'],
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
        fc.integer({ min: 1, max: 400 * 86_400_000 }),
        (limit, periodMs) => {
          expect(parseRate(formatRate({ limit, periodMs }))).toEqual({ limit, periodMs });
        },
      ),
    );
  });
});
