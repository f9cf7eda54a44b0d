/**
 * Human output of the CLI: tables with status symbols and relative times. Machine output is
 * `--json` and never goes through here.
 */
import { formatUses } from '../../shared/resources.ts';
import { resourceTable } from './resource-format.ts';
import type { HistoryEntry, Stats, Task, TaskStatus } from '../../shared/domain.ts';
import { TASK_STATUSES } from '../../shared/domain.ts';
import { formatDuration, formatElapsed } from '../../shared/durations.ts';
import { afterWaiting, type WaitReason } from '../../shared/why-waiting.ts';
import { historyView, remainingMs } from '../../shared/attempt-view.ts';
import { groupTable } from './group-format.ts';

export const STATUS_SYMBOL: Record<TaskStatus, string> = {
  pending: '○',
  running: '▶',
  retrying: '↻',
  done: '✓',
  failed: '✗',
  cancelled: '⊘',
};

/** `3m ago`, `in 20s`, `just now`; '-' for none. */
export function relativeTime(at: number | null, now: number): string {
  if (at === null) return '-';
  const d = at - now;
  if (Math.abs(d) < 1000) return 'just now';
  return d > 0 ? `in ${formatElapsed(d)}` : `${formatElapsed(-d)} ago`;
}

/** Left-aligned columns, padded to the widest cell; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - width(c))))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

// Good enough for the symbols and Latin text the CLI prints (no wide CJK handling needed here).
function width(s: string): number {
  return [...s].length;
}

function oneLine(s: string | null, max = 60): string {
  if (!s) return '';
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The table of `list`; a waiting task's ERROR cell says why it waits instead (why-waiting.ts). */
export function taskTable(tasks: readonly (Task & { waiting?: WaitReason | null })[], now: number): string {
  if (tasks.length === 0) return 'No tasks match.';
  return table(
    ['ID', 'STATUS', 'KIND', 'GROUP', 'PRI', 'TRIES', 'NAME', 'WHEN', 'ERROR / WAITING'],
    tasks.map((t) => [
      String(t.id),
      `${STATUS_SYMBOL[t.status]} ${t.status}`,
      t.kind,
      t.group,
      String(t.priority),
      `${t.attempts}/${t.maxAttempts}`,
      oneLine(t.name, 32),
      whenOf(t, now),
      t.waiting ? oneLine(afterWaiting(t.waiting.message), 60) : oneLine(errorCell(t), 50),
    ]),
  );
}

/**
 * The ERROR cell: what went wrong before which command (`exited with code 1: no such file
 * ("backup.sh /srv")`), so the cut at the column's width drops the command, not the reason. A
 * pending task has no error to show: one it had was its previous run's, before a retry.
 */
function errorCell(t: Task): string | null {
  if (t.status === 'pending' || t.status === 'running' || !t.error) return null;
  const m = /^"(.*)" ((?:exited with code -?\d+|was killed by \S+)(?:: .*)?)$/s.exec(t.error);
  return m ? `${m[2]} ("${m[1]}")` : t.error;
}

function whenOf(t: Task, now: number): string {
  if (t.status === 'running') return `started ${relativeTime(t.startedAt, now)}`;
  if (t.status === 'pending' || t.status === 'retrying')
    return t.runAt > now ? `runs ${relativeTime(t.runAt, now)}` : `queued ${relativeTime(t.createdAt, now)}`;
  return `ended ${relativeTime(t.finishedAt, now)}`;
}

export function taskDetail(t: Task & { history: HistoryEntry[] }, now: number): string {
  const lines = [
    `Task ${t.id}  ${STATUS_SYMBOL[t.status]} ${t.status}${t.cancelRequested ? ' (cancel requested)' : ''}`,
    `  name       ${t.name}`,
    `  kind       ${t.kind}`,
    `  group      ${t.group}`,
    `  priority   ${t.priority}`,
    `  attempts   ${t.attempts} of ${t.maxAttempts}${t.retryAfterCount ? ` (+${t.retryAfterCount} Retry-After reschedules)` : ''}`,
    `  created    ${iso(t.createdAt)} (${relativeTime(t.createdAt, now)})`,
    `  run at     ${iso(t.runAt)} (${relativeTime(t.runAt, now)})`,
  ];
  if (t.timeout !== null) lines.push(`  timeout    ${formatDuration(t.timeout)}`);
  if (t.unique) lines.push(`  unique     ${t.unique}`);
  if (t.uses.length > 0) lines.push(`  uses       ${formatUses(t.uses)}`);
  if (t.startedAt) lines.push(`  started    ${iso(t.startedAt)} (${relativeTime(t.startedAt, now)})`);
  if (t.finishedAt) lines.push(`  finished   ${iso(t.finishedAt)} (${relativeTime(t.finishedAt, now)})`);
  if (t.leaseOwner) lines.push(`  worker     ${t.leaseOwner}`);
  // Only while it waits: `run` keeps its task for its own worker until it starts.
  if (t.reservedFor && (t.status === 'pending' || t.status === 'retrying'))
    lines.push(`  held for   ${t.reservedFor} (the \`semaforo run\` that enqueued it runs it)`);
  if (t.progress !== null && t.status === 'running') {
    const left = remainingMs(t.progress, t.startedAt, now);
    lines.push(
      `  progress   ${Math.round(t.progress * 100)}%${left !== null ? ` (about ${formatElapsed(left)} left)` : ''}`,
    );
  }
  const cwd = t.kind === 'shell' ? (t.payload as { cwd?: unknown } | null)?.cwd : undefined;
  if (typeof cwd === 'string') lines.push(`  cwd        ${cwd}`);
  lines.push(`  payload    ${JSON.stringify(t.payload)}`);
  if (t.result !== null) lines.push(`  result     ${JSON.stringify(t.result)}`);
  if (t.error) lines.push(`  error      ${t.error}`);
  if (t.history.length) {
    lines.push('', 'History:');
    // Oldest first, as a log reads; numbered across manual retries, a repeated error said once.
    for (const { entry: h, ordinal, code, sameErrorAs } of historyView(t.history).reverse()) {
      // An action (a retry, a cancel) takes no time worth showing.
      const paused = h.pausedMs ? `, ${formatElapsed(h.pausedMs)} of it paused by a machine gate` : '';
      const took =
        h.endedAt !== null && h.type === 'attempt'
          ? ` (${formatElapsed(h.endedAt - h.startedAt)}${paused})`
          : '';
      const what = ordinal !== null ? `attempt ${ordinal}` : 'action';
      const how = code ? `, ${code}` : '';
      lines.push(
        `  ${iso(h.startedAt)}  ${what}: ${h.outcome}${how}${took}${h.worker ? `  on ${h.worker}` : ''}`,
      );
      if (h.error)
        lines.push(
          sameErrorAs !== null ? `      error: same as attempt ${sameErrorAs}` : `      error: ${h.error}`,
        );
      if (h.output) for (const l of h.output.trimEnd().split('\n').slice(-20)) lines.push(`      | ${l}`);
    }
  }
  return lines.join('\n');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function statsText(s: Stats, now: number): string {
  const counts = TASK_STATUSES.map((st) => `${STATUS_SYMBOL[st]} ${st} ${s.counts[st]}`).join('   ');
  const state = s.settings.paused ? 'PAUSED' : 'running';
  const lines = [
    `Queue ${state}, global limit ${s.settings.globalConcurrency}, retention ${s.settings.retentionDays} days`,
    counts,
    '',
    groupTable(s.groups, now),
  ];
  if (s.resources.length > 0) lines.push('', resourceTable(s.resources));
  if (s.recentFailures.length) {
    lines.push('', 'Recent failures:');
    for (const t of s.recentFailures)
      lines.push(
        `  ${t.id}  ${t.name} [${t.group}]  ${relativeTime(t.finishedAt, now)}: ${oneLine(t.error, 70)}`,
      );
  }
  return lines.join('\n');
}
