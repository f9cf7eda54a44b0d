import { describe, expect, it } from 'vitest';
import { duesBetween, nextDue, nextDues, type Recurrence } from '../../shared/schedule-times.ts';
import { planFires } from '../../electron/core/schedule/plan.ts';

const iso = (ms: number[]) => ms.map((t) => new Date(t).toISOString());
const at = (s: string) => Date.parse(s);
const berlin = (cron: string): Recurrence => ({ cron, timezone: 'Europe/Berlin' });

describe('next due times', () => {
  it('runs a fixed-time job in the spring DST gap at the first valid time after it, once', () => {
    // 2026-03-29: Berlin jumps from 02:00 CET to 03:00 CEST; 02:30 does not exist that night.
    expect(iso(nextDues(berlin('30 2 * * *'), at('2026-03-27T12:00:00Z'), 3))).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST, right after the gap
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  it('runs a fixed-time job once on the autumn night whose 02:30 happens twice', () => {
    // 2026-10-25: 03:00 CEST falls back to 02:00 CET; 02:30 occurs at 00:30Z and 01:30Z.
    expect(iso(nextDues(berlin('30 2 * * *'), at('2026-10-24T12:00:00Z'), 2))).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('keeps a stepped job on both occurrences of the repeated hour (real time keeps flowing)', () => {
    const times = nextDues(berlin('*/30 * * * *'), at('2026-10-25T00:00:00Z'), 4);
    expect(iso(times)).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T01:30:00.000Z',
      '2026-10-25T02:00:00.000Z',
    ]);
  });

  it('skips months without the day, and L means the last day of each month', () => {
    const utc = (cron: string): Recurrence => ({ cron, timezone: 'UTC' });
    expect(iso(nextDues(utc('0 9 31 * *'), at('2026-01-15T00:00:00Z'), 3))).toEqual([
      '2026-01-31T09:00:00.000Z',
      '2026-03-31T09:00:00.000Z',
      '2026-05-31T09:00:00.000Z',
    ]);
    expect(iso(nextDues(utc('0 0 L * *'), at('2028-01-31T12:00:00Z'), 2))).toEqual([
      '2028-02-29T00:00:00.000Z', // leap year
      '2028-03-31T00:00:00.000Z',
    ]);
  });

  it('keeps an interval on its grid, however late it is asked', () => {
    const r: Recurrence = { everyMs: 90_000, anchor: 1_000_000 };
    expect(nextDue(r, 0)).toBe(1_000_000);
    expect(nextDue(r, 1_000_000)).toBe(1_090_000);
    expect(nextDue(r, 1_000_000 + 90_000 * 1000 + 1)).toBe(1_000_000 + 90_000 * 1001);
    expect(duesBetween(r, 1_000_000, 1_000_000 + 90_000 * 9, 3)).toEqual({
      times: [1_000_000 + 90_000 * 7, 1_000_000 + 90_000 * 8, 1_000_000 + 90_000 * 9],
      total: 10,
    });
  });
});

describe('missed runs after three days closed', () => {
  // Hourly job last due at the moment the app closed; the app opens again 3 days and 10 minutes later.
  const closedAt = at('2026-12-01T00:00:00Z');
  const now = closedAt + 3 * 24 * 3600_000 + 10 * 60_000;
  const hourly = { recurrence: berlin('0 * * * *'), nextDueAt: closedAt, overlap: 'allow' as const };

  it('skip (the default) runs nothing for the past and waits for the next due time', () => {
    const p = planFires({ ...hourly, missed: 'skip' }, now, false);
    expect(p.fire).toEqual([]);
    expect(p.droppedMissed).toBe(73); // 00:00 on day 1 through 00:00 on day 4
    expect(new Date(p.nextDueAt!).toISOString()).toBe('2026-12-04T01:00:00.000Z');
  });

  it('once enqueues a single catch-up run for the latest due time', () => {
    const p = planFires({ ...hourly, missed: 'once' }, now, false);
    expect(iso(p.fire)).toEqual(['2026-12-04T00:00:00.000Z']);
    expect(p.droppedMissed).toBe(72);
  });

  it('all enqueues every missed run, oldest first, bounded to the latest 100', () => {
    const p = planFires({ ...hourly, missed: 'all' }, now, false);
    expect(p.fire).toHaveLength(73);
    expect(iso([p.fire[0]!, p.fire[72]!])).toEqual(['2026-12-01T00:00:00.000Z', '2026-12-04T00:00:00.000Z']);
    const every5 = planFires(
      { recurrence: berlin('*/5 * * * *'), nextDueAt: closedAt, overlap: 'allow', missed: 'all' },
      now,
      false,
    );
    expect(every5.fire).toHaveLength(100);
    expect(every5.droppedMissed).toBe(3 * 24 * 12 + 3 - 100);
    expect(every5.fire[99]).toBe(now);
  });

  it('an on-time due time runs under every policy', () => {
    for (const missed of ['skip', 'once', 'all'] as const) {
      const p = planFires({ ...hourly, nextDueAt: closedAt, missed }, closedAt + 2000, false);
      expect(p.fire).toEqual([closedAt]);
      expect(p.droppedMissed).toBe(0);
    }
  });

  it('overlap skip enqueues at most one run, and none while the previous one is active', () => {
    const p = planFires({ ...hourly, missed: 'all', overlap: 'skip' }, now, false);
    expect(p.fire).toHaveLength(1);
    expect(p.skippedOverlap).toBe(72);
    const busy = planFires(
      { ...hourly, nextDueAt: closedAt, missed: 'skip', overlap: 'skip' },
      closedAt,
      true,
    );
    expect(busy.fire).toEqual([]);
    expect(busy.skippedOverlap).toBe(1);
  });
});
