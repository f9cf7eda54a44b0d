/**
 * The storage contract for schedules, next to the TaskStore one. Firing is one transaction that
 * reads the due schedules, enqueues their tasks and advances their next due time, so two
 * processes sharing the queue can never both enqueue the same due time. Asynchronous like
 * TaskStore, whose `schedules` it is.
 */
import type { Schedule } from '../../../shared/domain.ts';
import type { FirePlan, DueSchedule } from '../schedule/plan.ts';

export type StoredSchedule = Omit<Schedule, 'upcoming' | 'health'>;

/** What is written: the caller's fields, already validated, with the first due time. */
export type NewSchedule = Pick<
  Schedule,
  | 'name'
  | 'cron'
  | 'timezone'
  | 'everyMs'
  | 'task'
  | 'missed'
  | 'overlap'
  | 'enabled'
  | 'nextDueAt'
  | 'alarms'
>;

export interface FireResult {
  /** ids of the tasks enqueued */
  taskIds: number[];
  /** schedules whose state changed */
  schedules: number;
  /** damaged schedules this firing paused instead of firing (each once: it is paused after) */
  parked: { name: string; problem: string }[];
}

export interface ScheduleStore {
  create(s: NewSchedule, now: number): Promise<StoredSchedule>;
  replace(name: string, s: NewSchedule, now: number): Promise<StoredSchedule>;
  get(name: string): Promise<StoredSchedule | null>;
  list(): Promise<StoredSchedule[]>;
  setEnabled(name: string, enabled: boolean, nextDueAt: number | null, now: number): Promise<StoredSchedule>;
  remove(name: string): Promise<boolean>;
  /** Enqueues one run now, outside the due times (the overlap policy does not apply). */
  runNow(name: string, now: number): Promise<{ taskId: number; created: boolean }>;
  /** Fires every enabled schedule due at `now`, deciding each with `plan`. */
  fireDue(
    now: number,
    plan: (s: DueSchedule & { id: number }, previousRunActive: boolean) => FirePlan,
  ): Promise<FireResult>;
  /** The enabled schedule due soonest. */
  nextDue(): Promise<{ name: string; dueAt: number } | null>;
}
