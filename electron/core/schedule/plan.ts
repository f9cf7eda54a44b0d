/**
 * The scheduler's decision for one schedule at one moment, as a pure function: which due times
 * to enqueue now, what becomes the next due time, and what is dropped (missed while no scheduler
 * ran, or skipped because the previous run is still going).
 */
import { MAX_CATCH_UP, type MissedPolicy, type OverlapPolicy } from '../../../shared/domain.ts';
import { duesBetween, nextDue, nextDues, type Recurrence } from '../../../shared/schedule-times.ts';

/** A due time this close behind the clock is on time, not missed (covers a late timer or a busy lock). */
export const ON_TIME_MS = 60_000;

/** Interval schedules keep their grid through the stored next due time (`anchor`). */
export function recurrenceOf(
  s: { cron: string | null; timezone: string | null; everyMs: number | null },
  anchor: number,
): Recurrence {
  return s.cron !== null ? { cron: s.cron, timezone: s.timezone } : { everyMs: s.everyMs ?? 60_000, anchor };
}

/**
 * A recurrence counted from `now` and its first due time after it. Due times count from now: a
 * new, edited or resumed schedule never "catches up" on its past, and a paused one shows what it
 * would do if resumed now.
 */
export function firstDue(
  s: { cron: string | null; timezone: string | null; everyMs: number | null },
  now: number,
): { recurrence: Recurrence; first: number | null } {
  const recurrence = recurrenceOf(s, now + (s.everyMs ?? 0));
  return { recurrence, first: nextDue(recurrence, now) };
}

/** `count` due times starting with `first` (none when there is no first). */
export function dueTimes(r: Recurrence, first: number | null, count: number): number[] {
  return first === null ? [] : [first, ...nextDues(r, first, count - 1)];
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
