/** A recurring schedule, the task template it enqueues, and its missed and overlap policies. */
import type { ScheduleAlarms, ScheduleHealth } from '../schedule-alarms.ts';
import type { JsonValue, ResourceUse, TaskStatus } from './task.ts';

/** What a schedule does about due times that passed while no scheduler ran (the app was closed). */
export const MISSED_POLICIES = ['skip', 'once', 'all'] as const;
export type MissedPolicy = (typeof MISSED_POLICIES)[number];
/** `skip`: no new run while the previous run of the same schedule is still pending or running. */
export const OVERLAP_POLICIES = ['allow', 'skip'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
/** At most this many catch-up runs under the `all` policy. */
export const MAX_CATCH_UP = 100;

/** The task a schedule enqueues each time it comes due. */
export interface TaskTemplate {
  kind: string;
  /** the task's name; null: the schedule's name */
  name: string | null;
  group: string;
  priority: number;
  maxAttempts: number;
  timeout: number | null;
  payload: JsonValue;
  /** named resources each run holds (absent: none) */
  uses?: ResourceUse[];
}

/** A recurring schedule: a cron expression (in a zone) or an interval, enqueuing a task template. */
export interface Schedule {
  id: number;
  name: string;
  /** 5-field cron expression, or null for an interval schedule */
  cron: string | null;
  /** IANA zone of the cron expression; null: the machine's local zone */
  timezone: string | null;
  /** interval in milliseconds, or null for a cron schedule */
  everyMs: number | null;
  task: TaskTemplate;
  missed: MissedPolicy;
  overlap: OverlapPolicy;
  enabled: boolean;
  /** the next due time; null when paused or when the expression never comes due again */
  nextDueAt: number | null;
  /** the due time of the last run enqueued */
  lastDueAt: number | null;
  lastEnqueuedAt: number | null;
  lastTaskId: number | null;
  /** status of the last task, if it still exists */
  lastTaskStatus: TaskStatus | null;
  /** when the last task's latest attempt started, and when it ended (null: not yet, or gone) */
  lastTaskStartedAt: number | null;
  lastTaskFinishedAt: number | null;
  /** what each run is expected to do (the dead-man's switch) */
  alarms: ScheduleAlarms;
  /** the schedule judged against its alarms and its last run, now */
  health: ScheduleHealth;
  /** due times not run because the previous run was still going (overlap `skip`) */
  skippedOverlap: number;
  /** due times dropped because they passed while no scheduler ran (missed policy) */
  skippedMissed: number;
  createdAt: number;
  updatedAt: number;
  /** the next five due times, as the UI shows them */
  upcoming: number[];
  /**
   * Set only when the stored row is damaged (a hand edit, a bad restore): one line naming what,
   * e.g. `the stored task template is damaged: not JSON`. The other fields hold what could be
   * read (`task` a stand-in where none could); it never enqueues a task (firing pauses it), and
   * can be paused, replaced whole (which repairs it) or removed.
   */
  problem?: string;
}
