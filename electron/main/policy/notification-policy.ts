/**
 * When to show a desktop notification for tasks that failed for good. Pure: the adapter feeds it
 * failures and the clock and shows what it returns.
 *
 * - at most one notification per group per `windowMs` (a minute);
 * - failures arriving inside a group's window are held and come out as one aggregated notice
 *   ("7 tasks failed in group vendor") when the window ends;
 * - settings turn notifications off or limit them to chosen groups.
 */
import type { NotificationSettings } from '../../../shared/domain.ts';
import type { ScheduleAlarm } from '../../../shared/schedule-alarms.ts';

/** The notice `group` of schedules' alarms (no task group is named so: names hold no space). */
export const SCHEDULE_ALARMS = 'schedule alarms';

export interface Failure {
  taskId: number;
  name: string;
  group: string;
  error: string | null;
}

export interface Notice {
  group: string;
  title: string;
  body: string;
  /** one failure: clicking opens that task; several: the Failures screen for the group */
  taskId: number | null;
  count: number;
}

interface GroupState {
  lastShownAt: number;
  held: Failure[];
}

export class NotificationPolicy {
  private readonly windowMs: number;
  private readonly groups = new Map<string, GroupState>();

  constructor(windowMs = 60_000) {
    this.windowMs = windowMs;
  }

  /** New failures at `now`: returns what to show at once; the rest is held for `due()`. */
  offer(failures: readonly Failure[], settings: NotificationSettings, now: number): Notice[] {
    if (!settings.enabled) return [];
    const byGroup = new Map<string, Failure[]>();
    for (const f of failures) {
      if (settings.groups !== null && !settings.groups.includes(f.group)) continue;
      byGroup.set(f.group, [...(byGroup.get(f.group) ?? []), f]);
    }
    const out: Notice[] = [];
    for (const [group, list] of byGroup) {
      const g = this.groups.get(group);
      if (g && now - g.lastShownAt < this.windowMs) {
        g.held.push(...list);
        continue;
      }
      this.groups.set(group, { lastShownAt: now, held: [] });
      out.push(notice(group, list));
    }
    return out;
  }

  /** Held failures whose group window has ended by `now`, aggregated per group. */
  due(now: number): Notice[] {
    const out: Notice[] = [];
    for (const [group, g] of this.groups) {
      if (g.held.length === 0 || now - g.lastShownAt < this.windowMs) continue;
      out.push(notice(group, g.held));
      this.groups.set(group, { lastShownAt: now, held: [] });
    }
    return out;
  }

  /** When `due` next has something to give, or null. */
  nextDueAt(): number | null {
    let at: number | null = null;
    for (const g of this.groups.values())
      if (g.held.length) at = Math.min(at ?? Infinity, g.lastShownAt + this.windowMs);
    return at;
  }
}

function notice(group: string, list: readonly Failure[]): Notice {
  if (list.length === 1) {
    const f = list[0]!;
    return {
      group,
      count: 1,
      taskId: f.taskId,
      title: `Task failed: ${f.name}`,
      body: `${f.error ?? 'failed'} (group ${group})`.slice(0, 240),
    };
  }
  return {
    group,
    count: list.length,
    taskId: null,
    title: `${list.length} tasks failed in group ${group}`,
    body: list
      .slice(0, 3)
      .map((f) => f.name)
      .join(', ')
      .concat(list.length > 3 ? `, and ${list.length - 3} more` : ''),
  };
}

/** Alarms raised together as one notice (they come once each: alarm-watch.ts). */
export function alarmNotice(raised: readonly ScheduleAlarm[]): Notice | null {
  if (raised.length === 0) return null;
  const say = (a: ScheduleAlarm) => (a.state === 'too-fast' ? 'ran too fast' : `is ${a.state}`);
  if (raised.length === 1) {
    const a = raised[0]!;
    return {
      group: SCHEDULE_ALARMS,
      count: 1,
      taskId: null,
      title: `Schedule ${a.schedule} ${say(a)}`,
      body: a.message.slice(0, 240),
    };
  }
  return {
    group: SCHEDULE_ALARMS,
    count: raised.length,
    taskId: null,
    title: `${raised.length} schedules need attention`,
    body: raised
      .slice(0, 3)
      .map((a) => `${a.schedule} ${say(a)}`)
      .join(', ')
      .concat(raised.length > 3 ? `, and ${raised.length - 3} more` : ''),
  };
}
