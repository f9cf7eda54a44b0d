/**
 * Short ways to write the schedules of the schedule tests, and one firing as the scheduler makes
 * it (free of vitest, like shapes.ts).
 */
import { planFires } from '../../electron/core/schedule/plan.ts';
import type { FireResult, NewSchedule } from '../../electron/core/store/schedule-store.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import { NO_ALARMS } from '../../shared/schedule-alarms.ts';

export const T0 = Date.parse('2026-12-01T00:00:00Z');
export const MIN = 60_000;

/** A schedule every minute, due first at T0 + 1 min, enqueuing a one-try `sleep`. */
export const everyMinute = (name: string, more: Partial<NewSchedule> = {}): NewSchedule => ({
  name,
  cron: null,
  timezone: null,
  everyMs: MIN,
  task: {
    kind: 'sleep',
    name: null,
    group: 'default',
    priority: 5,
    maxAttempts: 1,
    timeout: null,
    payload: {},
  },
  missed: 'skip',
  overlap: 'allow',
  enabled: true,
  nextDueAt: T0 + MIN,
  alarms: NO_ALARMS,
  ...more,
});

/** One firing at `now`, planned as the scheduler plans it. */
export const fireAt = (store: Pick<TaskStore, 'schedules'>, now: number): Promise<FireResult> =>
  store.schedules.fireDue(now, (s, active) => planFires(s, now, active));
