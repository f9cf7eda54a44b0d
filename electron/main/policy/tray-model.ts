/**
 * What the tray shows, decided from the queue's state: a pure function, so every state, label
 * and menu item is tested in plain Node; the Electron adapter (../tray.ts) only renders it.
 *
 * State precedence: attention > paused > busy > idle. A failure the user has not seen, or a
 * schedule's alarm, outranks a pause, because it is what in the tray asks for action.
 */
import type { StatusCounts, Task } from '../../../shared/domain.ts';
import { formatElapsed } from '../../../shared/durations.ts';
import { ellipsize as truncate } from '../../../shared/ellipsis.ts';
import type { ScheduleAlarm } from '../../../shared/schedule-alarms.ts';
import { waitingSentence, type WaitReason } from '../../../shared/why-waiting.ts';

export type TrayState = 'idle' | 'busy' | 'attention' | 'paused';

export interface TrayInput {
  counts: StatusCounts;
  /** the whole queue is paused, or every group that has tasks is */
  paused: boolean;
  /** newest first, as stats() returns them */
  recentFailures: readonly Task[];
  /** failures that ended after this time are unseen (the user last looked then) */
  seenFailuresUntil: number;
  now: number;
  /** null where the platform has no login items */
  launchAtLogin: boolean | null;
  notificationsEnabled: boolean;
  /** the next schedule due, when there are schedules */
  nextSchedule?: { name: string; at: number } | null;
  /** schedules whose alarm holds (late, missed, overrun, too fast) */
  scheduleAlarms?: readonly ScheduleAlarm[];
  /** why the next waiting task waits (why-waiting.ts), when tasks wait */
  waiting?: WaitReason | null;
  /** which store the queue is on, in one line (shared/queue-place.ts) */
  queue?: string;
}

export type TrayAction =
  | { type: 'open-task'; taskId: number }
  | { type: 'open' }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'retry-failed' }
  | { type: 'toggle-login' }
  | { type: 'toggle-notifications' }
  | { type: 'quit' };

export type TrayMenuItem =
  | { kind: 'separator' }
  | { kind: 'label'; label: string }
  | { kind: 'action'; label: string; action: TrayAction; enabled: boolean }
  | { kind: 'checkbox'; label: string; action: TrayAction; checked: boolean };

export interface TrayView {
  state: TrayState;
  /** the icon's base name in build/icons, e.g. `tray-busy` */
  icon: string;
  tooltip: string;
  /** short text next to the icon where the platform shows one (macOS): the running count */
  title: string;
  menu: TrayMenuItem[];
}

export const MAX_MENU_FAILURES = 5;

export function unseenFailures(input: Pick<TrayInput, 'recentFailures' | 'seenFailuresUntil'>): number {
  return input.recentFailures.filter((t) => (t.finishedAt ?? 0) > input.seenFailuresUntil).length;
}

export function trayState(input: TrayInput): TrayState {
  if (input.counts.failed > 0 && unseenFailures(input) > 0) return 'attention';
  if ((input.scheduleAlarms?.length ?? 0) > 0) return 'attention';
  if (input.paused) return 'paused';
  const c = input.counts;
  if (c.running + c.pending + c.retrying > 0) return 'busy';
  return 'idle';
}

function age(at: number | null, now: number): string {
  if (at === null) return '';
  const d = Math.max(0, now - at);
  return d < 60_000 ? 'just now' : `${formatElapsed(d).replace(/(\d+[a-z]+)\d.*/, '$1')} ago`;
}

/** Cut in the middle: a long file path or URL is told apart by its end (the file, the schema). */
function truncateMiddle(s: string, max: number): string {
  if (s.length <= max) return s;
  const tail = Math.floor((max - 1) / 2);
  return `${s.slice(0, max - 1 - tail)}…${s.slice(s.length - tail)}`;
}

export function trayView(input: TrayInput): TrayView {
  const state = trayState(input);
  const c = input.counts;
  const waiting = c.pending + c.retrying;
  const summary = `${c.running} running, ${waiting} waiting, ${c.failed} failed`;
  // Why is said only when it is not the plain "a worker will take it".
  const why = waiting > 0 && input.waiting && input.waiting.code !== 'ready' ? input.waiting.message : null;
  const menu: TrayMenuItem[] = [
    { kind: 'label', label: `${c.running} running` },
    // "4 waiting: group vendor is full", "4 waiting for gpu: …": the word once
    { kind: 'label', label: why ? `${waiting} ${waitingSentence(truncate(why, 60))}` : `${waiting} waiting` },
    { kind: 'label', label: `${c.failed} failed` },
  ];
  if (input.paused) menu.unshift({ kind: 'label', label: 'Queue paused' });
  if (input.nextSchedule)
    menu.push({
      kind: 'label',
      label: `Next: ${truncate(input.nextSchedule.name, 32)} ${input.nextSchedule.at <= input.now ? 'now' : `in ${formatElapsed(input.nextSchedule.at - input.now)}`}`,
    });
  const failures = input.recentFailures.slice(0, MAX_MENU_FAILURES);
  if (failures.length) {
    menu.push({ kind: 'separator' });
    for (const t of failures)
      menu.push({
        kind: 'action',
        label: `✗ ${truncate(t.name, 40)} — ${age(t.finishedAt, input.now)}`,
        action: { type: 'open-task', taskId: t.id },
        enabled: true,
      });
  }
  const alarms = input.scheduleAlarms ?? [];
  if (alarms.length) {
    menu.push({ kind: 'separator' });
    for (const a of alarms.slice(0, MAX_MENU_FAILURES))
      menu.push({
        kind: 'action',
        label: `⚠ Schedule ${truncate(a.schedule, 32)} ${a.state === 'too-fast' ? 'ran too fast' : `is ${a.state}`}`,
        action: { type: 'open' },
        enabled: true,
      });
  }
  menu.push(
    { kind: 'separator' },
    input.paused
      ? { kind: 'action', label: 'Resume queue', action: { type: 'resume' }, enabled: true }
      : { kind: 'action', label: 'Pause queue', action: { type: 'pause' }, enabled: true },
    {
      kind: 'action',
      label: c.failed > 0 ? `Retry all failed (${c.failed})` : 'Retry all failed',
      action: { type: 'retry-failed' },
      enabled: c.failed > 0,
    },
    { kind: 'action', label: 'Open Semaforo', action: { type: 'open' }, enabled: true },
    { kind: 'separator' },
    {
      kind: 'checkbox',
      label: 'Notify on failures',
      action: { type: 'toggle-notifications' },
      checked: input.notificationsEnabled,
    },
  );
  if (input.launchAtLogin !== null)
    menu.push({
      kind: 'checkbox',
      label: 'Launch at login',
      action: { type: 'toggle-login' },
      checked: input.launchAtLogin,
    });
  menu.push({ kind: 'separator' });
  if (input.queue) menu.push({ kind: 'label', label: truncateMiddle(input.queue, 64) });
  menu.push({ kind: 'action', label: 'Quit Semaforo', action: { type: 'quit' }, enabled: true });
  return {
    state,
    icon: `tray-${state}`,
    tooltip: `Semaforo — ${summary}${why ? ` (${truncate(why, 80)})` : ''}${alarms.length ? `, ${alarms.length} schedule alarm${alarms.length > 1 ? 's' : ''}` : ''}${input.paused ? ' (paused)' : ''}`,
    title: c.running > 0 ? String(c.running) : '',
    menu,
  };
}

/** Whether two views render the same, so the adapter rebuilds the menu only on a real change. */
export function sameView(a: TrayView | null, b: TrayView): boolean {
  return a !== null && JSON.stringify(a) === JSON.stringify(b);
}
