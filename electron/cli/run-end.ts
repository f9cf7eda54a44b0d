/**
 * What `semaforo run` says on stderr when its command did not end by itself (cron mails stderr,
 * and an empty mail with exit code 124 tells nobody anything). Nothing when the command ran and
 * exited or was signalled on its own: its own output says why.
 */
import type { Task } from '../../shared/domain.ts';
import { formatDuration } from '../../shared/durations.ts';

export interface CommandExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export function endNote(t: Task, lastExit: CommandExit | null, command: readonly string[]): string | null {
  if (t.status === 'done') return null;
  if (t.status === 'cancelled') return 'semaforo: cancelled';
  const error = t.error ?? '';
  if (/^timed out/.test(error))
    return `semaforo: timed out after ${t.timeout === null ? error.slice('timed out after '.length) : formatDuration(t.timeout)}`;
  if (lastExit !== null) return null;
  if (/^command not found/.test(error)) return `semaforo: command not found: ${command[0]}`;
  return error ? `semaforo: ${error}` : null;
}
