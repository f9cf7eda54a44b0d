/**
 * Turns schedules' health (policy/schedule-health.ts), looked at again and again, into alarms
 * raised once: an alarm is one schedule, state and start time, announced when first seen and
 * forgotten once the schedule is healthy again (so the next one is announced too).
 */
import type { ScheduleAlarm } from '../../../shared/schedule-alarms.ts';
import { watchesAnything } from '../../../shared/schedule-alarms.ts';
import { scheduleHealth } from '../policy/schedule-health.ts';
import type { StoredSchedule } from '../store/schedule-store.ts';

export interface AlarmUpdate {
  /** every alarm that holds now */
  current: ScheduleAlarm[];
  /** those not announced before */
  raised: ScheduleAlarm[];
}

const keyOf = (a: ScheduleAlarm) => `${a.schedule}\u0000${a.state}\u0000${a.since}`;

export class AlarmWatch {
  private announced = new Set<string>();

  /** The alarms of `list` at `now`; null when nothing changed since the last look. */
  look(list: readonly StoredSchedule[], now: number): AlarmUpdate | null {
    const current: ScheduleAlarm[] = [];
    for (const s of list) {
      if (!watchesAnything(s.alarms)) continue;
      const h = scheduleHealth(s, now);
      // A failure is announced as one already (the failure notices), not again as an alarm.
      if (h.state === 'ok' || h.state === 'failed') continue;
      current.push({
        schedule: s.name,
        state: h.state,
        since: h.since ?? now,
        message: h.message ?? h.state,
      });
    }
    const keys = new Set(current.map(keyOf));
    const raised = current.filter((a) => !this.announced.has(keyOf(a)));
    const cleared = [...this.announced].some((k) => !keys.has(k));
    this.announced = keys;
    return raised.length > 0 || cleared ? { current, raised } : null;
  }
}
