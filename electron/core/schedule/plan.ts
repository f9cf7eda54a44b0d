/**
 * The scheduler's decision for one schedule at one moment, as a pure function: which due times
 * to enqueue now, what becomes the next due time, and what is dropped (missed while no scheduler
 * ran, or skipped because the previous run is still going).
 */
import { MAX_CATCH_UP, type MissedPolicy, type OverlapPolicy } from '../../../shared/domain.ts';
import { duesBetween, nextDue, type Recurrence } from '../../../shared/schedule-times.ts';

/** A due time this close behind the clock is on time, not missed (covers a late timer or a busy lock). */
export const ON_TIME_MS = 60_000;

/** Interval schedules keep their grid through the stored next due time (`anchor`). */
export function recurrenceOf(
  s: { cron: string | null; timezone: string | null; everyMs: number | null },
  anchor: number,
): Recurrence {
  return s.cron !== null ? { cron: s.cron, timezone: s.timezone } : { everyMs: s.everyMs ?? 60_000, anchor };
}

export interface DueSchedule {
  recurrence: Recurrence;
  /** the stored next due time, at or before `now` */
  nextDueAt: number;
  missed: MissedPolicy;
  overlap: OverlapPolicy;
}

export interface FirePlan {
  /** due times to enqueue a task for, oldest first */
  fire: number[];
  nextDueAt: number | null;
  droppedMissed: number;
  skippedOverlap: number;
}

export function planFires(s: DueSchedule, now: number, previousRunActive: boolean): FirePlan {
  const { times, total } = duesBetween(s.recurrence, s.nextDueAt, now, MAX_CATCH_UP);
  const nextDueAt = nextDue(s.recurrence, now);
  const latest = times[times.length - 1];
  if (latest === undefined) return { fire: [], nextDueAt, droppedMissed: 0, skippedOverlap: 0 };
  const onTime = now - latest <= ON_TIME_MS;
  let fire: number[];
  if (s.missed === 'all') fire = times;
  // `once`: one run stands for everything that came due (a catch-up and an on-time run merge).
  else if (s.missed === 'once') fire = [latest];
  else fire = onTime ? [latest] : [];
  const droppedMissed = total - fire.length;
  let skippedOverlap = 0;
  if (s.overlap === 'skip') {
    // Runs of one schedule must not overlap, so at most one is enqueued, and none while one is active.
    const keep = previousRunActive ? 0 : Math.min(1, fire.length);
    skippedOverlap = fire.length - keep;
    fire = fire.slice(fire.length - keep);
  }
  return { fire, nextDueAt, droppedMissed, skippedOverlap };
}
