import { describe, expect, it } from 'vitest';
import { scheduleHealth, type HealthInput } from '../../electron/core/policy/schedule-health.ts';
import { NO_ALARMS } from '../../shared/schedule-alarms.ts';

const T = Date.parse('2026-12-04T03:00:00Z');
const MIN = 60_000;
const watched = { graceMs: 10 * MIN, maxRuntimeMs: 60 * MIN, minRuntimeMs: 5000 };

function input(over: Partial<HealthInput> = {}): HealthInput {
  return {
    enabled: true,
    nextDueAt: T + 24 * 60 * MIN,
    lastDueAt: T,
    lastTaskId: 42,
    lastTaskStatus: 'done',
    lastTaskStartedAt: T + 1000,
    lastTaskFinishedAt: T + 20 * MIN,
    alarms: watched,
    ...over,
  };
}

describe("a schedule's health against its alarms", () => {
  it('is ok when the last run started in time, took a plausible while and succeeded', () => {
    expect(scheduleHealth(input(), T + 30 * MIN)).toEqual({ state: 'ok', since: null, message: null });
  });

  it('is missed once a due time passed by more than the grace without being enqueued', () => {
    const s = input({ nextDueAt: T + 60 * MIN });
    expect(scheduleHealth(s, T + 69 * MIN).state).toBe('ok');
    expect(scheduleHealth(s, T + 70 * MIN)).toEqual({
      state: 'missed',
      since: T + 70 * MIN,
      message: 'not enqueued within 10m of its due time: is a worker or the tray app running?',
    });
    // paused: nothing is due, nothing missed
    expect(scheduleHealth({ ...s, enabled: false }, T + 70 * MIN).state).toBe('ok');
  });

  it('is late when its enqueued run still waits after the grace (a paused queue, a jammed group)', () => {
    const s = input({ lastTaskStatus: 'pending', lastTaskStartedAt: null, lastTaskFinishedAt: null });
    expect(scheduleHealth(s, T + 9 * MIN).state).toBe('ok');
    expect(scheduleHealth(s, T + 10 * MIN)).toEqual({
      state: 'late',
      since: T + 10 * MIN,
      message: 'task 42 has not started 10m after its due time',
    });
  });

  it('is overrun when the run goes on past the maximum', () => {
    const s = input({ lastTaskStatus: 'running', lastTaskFinishedAt: null });
    expect(scheduleHealth(s, T + 30 * MIN).state).toBe('ok');
    expect(scheduleHealth(s, T + 61 * MIN)).toMatchObject({
      state: 'overrun',
      since: T + 1000 + 60 * MIN,
      message: 'task 42 has run longer than 1h',
    });
  });

  it('is too-fast when a success took less than the minimum, and failed when the run failed', () => {
    const quick = input({ lastTaskFinishedAt: T + 1120 });
    expect(scheduleHealth(quick, T + MIN)).toEqual({
      state: 'too-fast',
      since: T + 1120,
      message: 'task 42 succeeded in 120ms, under the 5s expected',
    });
    const failed = input({ lastTaskStatus: 'failed' });
    expect(scheduleHealth(failed, T + 30 * MIN)).toMatchObject({
      state: 'failed',
      message: 'task 42 failed',
    });
    // A failure is an outcome, watched or not; the other states need their alarm set.
    expect(scheduleHealth({ ...failed, alarms: NO_ALARMS }, T).state).toBe('failed');
    expect(scheduleHealth({ ...quick, alarms: NO_ALARMS }, T + MIN).state).toBe('ok');
  });
});
