/**
 * The schedule form's model: its text fields (the recurrence as a cron expression or a human
 * interval, the policies, and the task part shared with New task) in, a schedule spec out, checked
 * with the shared scheduleSpecSchema so the form says what the server would. Server issues (paths
 * like `cron`, `task.payload.command`, or `schedule.…` from an update) land on the same fields.
 */
import { MAX_CATCH_UP, type MissedPolicy, type OverlapPolicy, type Schedule } from '../../shared/domain.ts';
import { durationProblem, formatDuration, parseDuration } from '../../shared/durations.ts';
import { ValidationError, type FieldIssue } from '../../shared/errors.ts';
import { localTimeZone } from '../../shared/schedule-times.ts';
import { parseInput, scheduleSpecSchema, type ScheduleSpec } from '../../shared/schemas.ts';
import { formFromTemplate } from './form-from-task.ts';
import { buildTemplate } from './spec-from-form.ts';
import { EMPTY_FORM, placeIssues, visibleFields, type FieldName, type TaskForm } from './task-form.ts';

export type RecurrenceMode = 'cron' | 'interval';

export interface ScheduleForm {
  name: string;
  mode: RecurrenceMode;
  cron: string;
  /** an IANA zone; empty: the machine's local zone */
  timezone: string;
  /** the interval as people write it: 30s, 5m, 2h */
  every: string;
  missed: MissedPolicy;
  overlap: OverlapPolicy;
  enabled: boolean;
  /** the alarms as people write them (10m, 1h); empty: not watched */
  grace: string;
  maxRuntime: string;
  minRuntime: string;
  task: TaskForm;
}

export type ScheduleFieldName =
  | 'name'
  | 'cron'
  | 'timezone'
  | 'every'
  | 'missed'
  | 'overlap'
  | 'enabled'
  | 'grace'
  | 'maxRuntime'
  | 'minRuntime';

/** Where each schedule field's value goes in the spec. */
const SCHEDULE_PATHS: Record<ScheduleFieldName, string> = {
  name: 'name',
  cron: 'cron',
  timezone: 'timezone',
  every: 'everyMs',
  missed: 'missed',
  overlap: 'overlap',
  enabled: 'enabled',
  grace: 'alarms.graceMs',
  maxRuntime: 'alarms.maxRuntimeMs',
  minRuntime: 'alarms.minRuntimeMs',
};

export const EMPTY_SCHEDULE_FORM: ScheduleForm = {
  name: '',
  mode: 'cron',
  cron: '',
  timezone: '',
  every: '',
  missed: 'skip',
  overlap: 'allow',
  enabled: true,
  grace: '',
  maxRuntime: '',
  minRuntime: '',
  task: EMPTY_FORM,
};

/** One line each, shown under the select. */
export const MISSED_TEXT: Record<MissedPolicy, { label: string; explain: string }> = {
  skip: {
    label: 'skip',
    explain: 'Runs that fell due while no scheduler was running are dropped (and counted).',
  },
  once: { label: 'once', explain: 'After a gap, one catch-up run, however many were missed.' },
  all: { label: 'all', explain: `After a gap, one run for every missed time (at most ${MAX_CATCH_UP}).` },
};

export const OVERLAP_TEXT: Record<OverlapPolicy, { label: string; explain: string }> = {
  allow: {
    label: 'allow',
    explain: 'A run is enqueued even while the previous one is still waiting or running.',
  },
  skip: {
    label: 'skip',
    explain: 'A due time is skipped (and counted) while the previous run is not finished.',
  },
};

const MIN_EVERY_MS = 1000;
const MAX_EVERY_MS = 366 * 24 * 3600_000;

export type RecurrenceInput = { cron: string; timezone?: string } | { everyMs: number };

/** What the preview can ask the server about: a recurrence, a local problem, or nothing yet. */
export type RecurrenceState =
  | { kind: 'input'; input: RecurrenceInput }
  | { kind: 'problem'; issue: FieldIssue }
  | { kind: 'empty'; issue: FieldIssue };

export function recurrenceOf(
  form: Pick<ScheduleForm, 'mode' | 'cron' | 'timezone' | 'every'>,
): RecurrenceState {
  if (form.mode === 'cron') {
    const cron = form.cron.trim();
    if (cron === '')
      return {
        kind: 'empty',
        issue: { path: 'cron', message: 'must not be empty; e.g. 0 3 * * * runs every day at 03:00' },
      };
    const timezone = form.timezone.trim();
    return { kind: 'input', input: timezone ? { cron, timezone } : { cron } };
  }
  const text = form.every.trim();
  if (text === '')
    return { kind: 'empty', issue: { path: 'everyMs', message: 'must not be empty; e.g. 15m or 1h' } };
  const ms = parseDuration(text);
  if (ms === null)
    return {
      kind: 'problem',
      issue: { path: 'everyMs', message: durationProblem(text) },
    };
  if (ms < MIN_EVERY_MS || ms > MAX_EVERY_MS)
    return {
      kind: 'problem',
      issue: { path: 'everyMs', message: `must be from ${formatDuration(MIN_EVERY_MS)} to 366d` },
    };
  return { kind: 'input', input: { everyMs: ms } };
}

/** The spec the form describes, and every problem the text or the shared schema has with it. */
export function buildScheduleSpec(form: ScheduleForm): { spec: ScheduleSpec; issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const rec = recurrenceOf(form);
  const { template, issues: taskIssues } = buildTemplate(form.task);
  for (const i of taskIssues) issues.push({ ...i, path: i.path ? `task.${i.path}` : 'task' });
  const spec: Record<string, unknown> = { name: form.name.trim() };
  if (rec.kind === 'input') Object.assign(spec, rec.input);
  else issues.push(rec.issue);
  Object.assign(spec, { task: template, missed: form.missed, overlap: form.overlap, enabled: form.enabled });
  const alarms: Record<string, number | null> = {};
  for (const [field, key] of [
    ['grace', 'graceMs'],
    ['maxRuntime', 'maxRuntimeMs'],
    ['minRuntime', 'minRuntimeMs'],
  ] as const) {
    const text = form[field].trim();
    if (text === '') continue;
    const ms = parseDuration(text);
    if (ms === null) issues.push({ path: `alarms.${key}`, message: durationProblem(text) });
    else alarms[key] = ms;
  }
  // Absent: none watched (an edit that empties the three fields turns the alarms off).
  if (Object.keys(alarms).length > 0) spec.alarms = alarms;
  // Without a recurrence the schema would only repeat "give either cron or everyMs": check the rest.
  const checked = rec.kind === 'input' ? spec : { ...spec, everyMs: MIN_EVERY_MS };
  try {
    parseInput(scheduleSpecSchema, checked);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    for (const issue of err.issues) if (!issues.some((i) => i.path === issue.path)) issues.push(issue);
  }
  return { spec: spec as ScheduleSpec, issues };
}

export interface PlacedIssues {
  schedule: Partial<Record<ScheduleFieldName, string>>;
  task: Partial<Record<FieldName, string>>;
  /** issues no field shown owns (for the summary) */
  other: FieldIssue[];
}

/** Sorts issues onto the schedule's fields and the task fields shown for `kind`. */
export function placeScheduleIssues(issues: readonly FieldIssue[], kind: string): PlacedIssues {
  const schedule: PlacedIssues['schedule'] = {};
  const taskIssues: FieldIssue[] = [];
  const other: FieldIssue[] = [];
  for (const issue of issues) {
    // updateSchedule reports paths under its `schedule` input.
    const path = issue.path.replace(/^schedule(\.|$)/, '');
    if (path === 'task' || path.startsWith('task.') || path.startsWith('task[')) {
      taskIssues.push({ ...issue, path: path.replace(/^task\.?/, '') });
      continue;
    }
    const field = (Object.keys(SCHEDULE_PATHS) as ScheduleFieldName[]).find(
      (f) => path === SCHEDULE_PATHS[f] || path.startsWith(`${SCHEDULE_PATHS[f]}.`),
    );
    if (field) schedule[field] ??= issue.message;
    else other.push({ ...issue, path });
  }
  const placed = placeIssues(taskIssues, visibleFields(kind, { delay: false }));
  for (const i of placed.other) other.push({ ...i, path: i.path ? `task.${i.path}` : 'task' });
  return { schedule, task: placed.byField, other };
}

/** `1d2h3m4s`: every part, so editing a schedule never rounds its interval. */
export function exactDuration(ms: number): string {
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('') || '0ms';
}

/** A form filled from a stored schedule, for editing it. */
export function scheduleFormFrom(s: Schedule): ScheduleForm {
  return {
    name: s.name,
    mode: s.cron !== null ? 'cron' : 'interval',
    cron: s.cron ?? '',
    timezone: s.timezone ?? '',
    every: s.everyMs !== null ? exactDuration(s.everyMs) : '',
    missed: s.missed,
    overlap: s.overlap,
    enabled: s.enabled,
    grace: s.alarms.graceMs === null ? '' : exactDuration(s.alarms.graceMs),
    maxRuntime: s.alarms.maxRuntimeMs === null ? '' : exactDuration(s.alarms.maxRuntimeMs),
    minRuntime: s.alarms.minRuntimeMs === null ? '' : exactDuration(s.alarms.minRuntimeMs),
    task: formFromTemplate(s.task),
  };
}

/** `every 5m`, or `0 3 * * *` with its zone (`local` when none was given). */
export function recurrenceText(s: Pick<Schedule, 'cron' | 'timezone' | 'everyMs'>): string {
  if (s.cron !== null) return `${s.cron} (${s.timezone ?? 'local'})`;
  return `every ${formatDuration(s.everyMs ?? 0)}`;
}

/** The zone due times are shown in: the schedule's own, or this machine's. */
export function zoneOf(timezone: string | null): string {
  return timezone ?? localTimeZone();
}
