/** Durations as people read them: settings shown exactly, measured times briefly. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, formatElapsed, parseDuration } from '../../shared/durations.ts';

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
});
