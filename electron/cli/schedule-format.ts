/** How `semaforo schedule` prints schedules: the list's table and one schedule in full. */
import type { Schedule } from '../../shared/domain.ts';
import { formatDuration } from '../../shared/durations.ts';
import { localTimeZone } from '../../shared/schedule-times.ts';
import { relativeTime, table } from './format.ts';

/** on / paused, or the alarm that holds (late 12m, overrun, failed...); DAMAGED above all. */
function stateText(s: Schedule, now: number): string {
  if (s.problem !== undefined) return 'DAMAGED';
  const h = s.health;
  if (h.state === 'ok') return s.enabled ? 'on' : 'paused';
  return h.since === null ? h.state : `${h.state} ${relativeTime(h.since, now).replace(/ ago$/, '')}`;
}

function alarmsText(s: Schedule): string {
  const a = s.alarms;
  const parts = [
    a.graceMs === null ? null : `start within ${formatDuration(a.graceMs)} of due`,
    a.maxRuntimeMs === null ? null : `run at most ${formatDuration(a.maxRuntimeMs)}`,
    a.minRuntimeMs === null ? null : `run at least ${formatDuration(a.minRuntimeMs)}`,
  ].filter((x) => x !== null);
  return parts.length ? parts.join(', ') : 'none (add with --grace, --max-runtime, --min-runtime)';
}

const recurrenceText = (s: Schedule) =>
  s.cron !== null
    ? `cron ${s.cron} (${s.timezone ?? `local, ${localTimeZone()}`})`
    : s.everyMs !== null
      ? `every ${formatDuration(s.everyMs)}`
      : '-';

/** What a damaged schedule's owner can do about it. */
const DAMAGED_HINT =
  'never runs: repair it with semaforo schedule update NAME --repair (and the options it lacks), or in the dashboard';

/** Each damaged schedule's problem, under the table: the STATE column only says DAMAGED. */
function damagedNotes(list: readonly Schedule[]): string {
  const damaged = list.filter((s) => s.problem !== undefined);
  if (damaged.length === 0) return '';
  const lines = [
    ...damaged.map((s) => `DAMAGED ${s.name}: ${s.problem}`),
    `a damaged schedule ${DAMAGED_HINT}`,
  ];
  return `\n\n${lines.join('\n')}`;
}

export function scheduleTable(list: readonly Schedule[], now: number): string {
  if (list.length === 0) return 'no schedules (add one with `semaforo schedule add`)';
  const rows = table(
    ['NAME', 'WHEN', 'NEXT', 'LAST RUN', 'LAST TASK', 'STATE'],
    list.map((s) => [
      s.name,
      recurrenceText(s),
      s.enabled ? relativeTime(s.nextDueAt, now) : '-',
      relativeTime(s.lastEnqueuedAt, now),
      s.lastTaskId === null ? '-' : `${s.lastTaskId} ${s.lastTaskStatus ?? 'purged'}`,
      stateText(s, now),
    ]),
  );
  return rows + damagedNotes(list);
}

/** The task line; a template that could not be read at all has no kind to show. */
function taskText(s: Schedule): string {
  const t = s.task;
  if (s.problem !== undefined && t.kind === '') return '(cannot be read)';
  return (
    `${t.kind} "${t.name ?? s.name}" in group ${t.group}, priority ${t.priority}, ` +
    `${t.maxAttempts} attempt(s)${t.timeout === null ? '' : `, timeout ${formatDuration(t.timeout)}`}`
  );
}

export function scheduleDetail(s: Schedule, now: number): string {
  const t = s.task;
  const lines = [
    `schedule ${s.name}${s.problem !== undefined ? ' (DAMAGED)' : s.enabled ? '' : ' (paused)'}`,
    ...(s.problem !== undefined ? [`  problem:     ${s.problem}`, `               it ${DAMAGED_HINT}`] : []),
    `  when:        ${recurrenceText(s)}`,
    `  task:        ${taskText(s)}`,
    ...(s.problem !== undefined && t.kind === '' ? [] : [`  payload:     ${JSON.stringify(t.payload)}`]),
    `  missed runs: ${s.missed}    overlap: ${s.overlap}`,
    `  last run:    ${s.lastEnqueuedAt === null ? 'never' : `${new Date(s.lastEnqueuedAt).toISOString()} (${relativeTime(s.lastEnqueuedAt, now)})`}` +
      (s.lastTaskId === null ? '' : `, task ${s.lastTaskId} ${s.lastTaskStatus ?? '(purged)'}`),
    `  skipped:     ${s.skippedOverlap} while the previous run was going, ${s.skippedMissed} missed while closed`,
    `  alarms:      ${alarmsText(s)}`,
    `  health:      ${s.health.state === 'ok' ? 'ok' : `${s.health.state}: ${s.health.message}`}`,
    `  next due${s.enabled || s.problem !== undefined ? '' : ' (if resumed now)'}:`,
    ...(s.upcoming.length
      ? s.upcoming.map((at) => `    ${new Date(at).toISOString()}  ${relativeTime(at, now)}`)
      : ['    never']),
  ];
  return lines.join('\n');
}
