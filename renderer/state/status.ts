/**
 * How each status looks, per DESIGN-UI: the traffic light's colours, never colour alone — every
 * status also has a symbol and a word.
 */
import type { Stats, TaskStatus } from '../../shared/domain.ts';

export type Tone = 'amber' | 'green' | 'red' | 'grey';

export const STATUS_META: Record<TaskStatus, { symbol: string; word: string; tone: Tone }> = {
  pending: { symbol: '○', word: 'pending', tone: 'amber' },
  running: { symbol: '▶', word: 'running', tone: 'amber' },
  retrying: { symbol: '↻', word: 'retrying', tone: 'amber' },
  done: { symbol: '✓', word: 'done', tone: 'green' },
  failed: { symbol: '✕', word: 'failed', tone: 'red' },
  cancelled: { symbol: '⊘', word: 'cancelled', tone: 'grey' },
};

export type QueueState = 'idle' | 'busy' | 'attention' | 'paused';

export const QUEUE_STATE_META: Record<QueueState, { symbol: string; word: string; tone: Tone }> = {
  idle: { symbol: '●', word: 'Idle', tone: 'green' },
  busy: { symbol: '●', word: 'Busy', tone: 'amber' },
  attention: { symbol: '!', word: 'Needs attention', tone: 'red' },
  paused: { symbol: '‖', word: 'Paused', tone: 'grey' },
};

/** The light the whole queue shows (the tray's rule, applied to the window). */
export function queueState(stats: Stats): QueueState {
  if (stats.settings.paused) return 'paused';
  if (stats.counts.failed > 0) return 'attention';
  if (stats.counts.running + stats.counts.pending + stats.counts.retrying > 0) return 'busy';
  return 'idle';
}
