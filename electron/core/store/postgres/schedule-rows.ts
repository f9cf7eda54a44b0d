/**
 * A row of `schedules` (with its last task's status and times, joined), checked column by column
 * as every row read from the database is; store/schedule-row.ts makes the StoredSchedule of it.
 */
import type { ScheduleRow } from '../schedule-row.ts';
import { FLAG, INT, TEXT, TIME, orNull, rowChecker } from './rows.ts';

export { toSchedule, type ScheduleRow } from '../schedule-row.ts';

export const scheduleRow = rowChecker<ScheduleRow>('schedules', {
  id: INT,
  name: TEXT,
  cron: orNull(TEXT),
  timezone: orNull(TEXT),
  every_ms: orNull(INT),
  template: TEXT,
  missed: TEXT,
  overlap: TEXT,
  enabled: FLAG,
  next_due_at: orNull(TIME),
  last_due_at: orNull(TIME),
  last_enqueued_at: orNull(TIME),
  last_task_id: orNull(INT),
  skipped_overlap: INT,
  skipped_missed: INT,
  created_at: TIME,
  updated_at: TIME,
  grace_ms: orNull(INT),
  max_runtime_ms: orNull(INT),
  min_runtime_ms: orNull(INT),
  last_task_status: orNull(TEXT),
  last_task_started_at: orNull(TIME),
  last_task_finished_at: orNull(TIME),
});
