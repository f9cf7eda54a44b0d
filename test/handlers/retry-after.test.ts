import { describe, expect, it } from 'vitest';
import { classifyStatus } from '../../electron/core/handlers/http.ts';
import {
  RETRY_AFTER_BOUNDS,
  parseRetryAfter,
  retryAfterDelay,
} from '../../electron/core/handlers/retry-after.ts';

const now = Date.parse('2026-12-02T03:47:00Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 5 ', now)).toBe(5000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
  });

  it('reads an HTTP date in each RFC 9110 format, as GMT', () => {
    expect(parseRetryAfter('Wed, 02 Dec 2026 03:48:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Wednesday, 02-Dec-26 03:48:30 GMT', now)).toBe(90_000);
    // asctime carries no zone; it still means GMT, whatever this machine's zone is.
    expect(parseRetryAfter('Wed Dec  2 03:48:30 2026', now)).toBe(90_000);
  });

  it('gives 0 for a date already past', () => {
    expect(parseRetryAfter('Tue, 01 Dec 2026 00:00:00 GMT', now)).toBe(0);
  });

  it('gives null for absent or garbage values', () => {
    for (const v of [null, undefined, '', '   ', 'soon', '-5', '1 2', '10s', 'Foo, 99 Bar 2026', '0x10'])
      expect(parseRetryAfter(v, now), String(v)).toBeNull();
  });
});

describe('retryAfterDelay', () => {
  it('uses the default when the header is absent or garbage', () => {
    expect(retryAfterDelay(null, now)).toBe(RETRY_AFTER_BOUNDS.defaultMs);
    expect(retryAfterDelay('later', now)).toBe(RETRY_AFTER_BOUNDS.defaultMs);
  });

  it('clamps to the bounds: never "retry now", never days', () => {
    expect(retryAfterDelay('0', now)).toBe(RETRY_AFTER_BOUNDS.minMs);
    expect(retryAfterDelay('Tue, 01 Dec 2026 00:00:00 GMT', now)).toBe(RETRY_AFTER_BOUNDS.minMs);
    expect(retryAfterDelay('86400', now)).toBe(RETRY_AFTER_BOUNDS.maxMs);
    expect(retryAfterDelay('7', now)).toBe(7000);
    expect(retryAfterDelay('7', now, { defaultMs: 1, minMs: 0, maxMs: 3000 })).toBe(3000);
  });
});

describe('classifyStatus', () => {
  it('maps statuses to what the dispatcher should do', () => {
    expect(classifyStatus(200)).toBe('ok');
    expect(classifyStatus(204)).toBe('ok');
    expect(classifyStatus(304)).toBe('permanent');
    expect(classifyStatus(304, 304)).toBe('ok');
    expect(classifyStatus(200, 201)).toBe('permanent');
    expect(classifyStatus(429)).toBe('retry-after');
    expect(classifyStatus(503)).toBe('retry-after');
    expect(classifyStatus(500)).toBe('retry');
    expect(classifyStatus(502)).toBe('retry');
    expect(classifyStatus(408)).toBe('retry');
    expect(classifyStatus(400)).toBe('permanent');
    expect(classifyStatus(401)).toBe('permanent');
    expect(classifyStatus(404)).toBe('permanent');
  });
});
