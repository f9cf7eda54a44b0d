/**
 * Why a task that is not running waits: one answer for every face (`list`, `show`, `run`'s
 * waiting line, the dashboard, the tray), from the task and the queue's stats. Pure, so each face
 * computes it from what it already read, and the claim's own rules are mirrored in one place.
 *
 * The first reason that holds is given, in the order the claim checks them: a hold on the task
 * itself (reserved, paused), its own time (a cool-down, a delay, a backoff), then the limits that
 * are full (global, group, rate window). A task none of them holds is ready: it starts as soon as
 * a worker that has its kind claims it.
 */
import type { Stats, Task } from './domain.ts';
import { resourceShort } from './resource-wait.ts';
import { learnedOf, learnedText } from './adaptive-view.ts';
import { formatDuration, formatElapsed, formatRate } from './durations.ts';

export const WAIT_CODES = [
  'reserved',
  'queue-paused',
  'group-paused',
  'gate',
  'cooling-down',
  'backoff',
  'delayed',
  'global-full',
  'group-full',
  'adaptive-lowered',
  'rate-window',
  'resource',
  'no-worker',
  'ready',
] as const;
export type WaitCode = (typeof WAIT_CODES)[number];

export interface WaitReason {
  code: WaitCode;
  /** one line for people, e.g. "group vendor is full (1 of 1 running)" */
  message: string;
  /** the same in a few words, for a narrow column: "group full 1/1" */
  short: string;
  /** when this reason ends by itself, if it does */
  until?: number;
}

export interface WaitContext {
  /** `resources` absent: named resources are not judged (a face that did not read them) */
  stats: Pick<Stats, 'counts' | 'settings' | 'groups'> & Partial<Pick<Stats, 'resources'>>;
  now: number;
  /** the kinds a worker here has, when the face knows them (the CLI does); absent: not judged */
  kinds?: readonly string[];
  /**
   * the machine gates closed on this machine now, with their readings (judged by the face that
   * knows the machine: electron/core/machine/gate-view.ts); absent: not judged
   */
  closedGates?: readonly { group: string | null; reason: string }[];
  /** the `semaforo run` asking about its own task: its reservation is no reason to wait */
  holder?: string;
}

const inTime = (ms: number) => `in ${formatElapsed(Math.max(0, ms))}`;

/** Why `task` is not running now, or null when it runs or has ended. */
export function whyWaiting(task: Task, ctx: WaitContext): WaitReason | null {
  if (task.status !== 'pending' && task.status !== 'retrying') return null;
  const { stats, now } = ctx;
  const group = stats.groups.find((g) => g.name === task.group);
  if (task.reservedFor !== null && task.reservedFor !== ctx.holder)
    return {
      code: 'reserved',
      message: `held for the \`semaforo run\` ${task.reservedFor}, which runs the command itself`,
      short: 'held for its run',
    };
  if (stats.settings.paused)
    return { code: 'queue-paused', message: 'the queue is paused (semaforo resume)', short: 'queue paused' };
  if (group?.paused)
    return {
      code: 'group-paused',
      message: `group ${task.group} is paused (semaforo resume ${task.group})`,
      short: 'group paused',
    };
  const gate =
    ctx.closedGates?.find((g) => g.group === null) ?? ctx.closedGates?.find((g) => g.group === task.group);
  if (gate)
    return {
      code: 'gate',
      message: `waiting: ${gate.reason} (${gate.group === null ? 'the queue' : `group ${gate.group}`}'s machine gate, on this machine)`,
      short: `gate: ${gate.reason}`,
    };
  if (group?.blockedUntil != null && group.blockedUntil > now) {
    const said = task.retryAfterCount > 0 && task.error ? `; last said: ${firstLine(task.error)}` : '';
    return {
      code: 'cooling-down',
      message: `group ${task.group} cools down after the vendor asked to wait: starts ${inTime(group.blockedUntil - now)}${said}`,
      short: 'cooling down',
      until: group.blockedUntil,
    };
  }
  if (task.runAt > now)
    return task.status === 'retrying'
      ? {
          code: 'backoff',
          message: `retry backoff after attempt ${task.attempts} of ${task.maxAttempts}: next ${inTime(task.runAt - now)}`,
          short: 'retry backoff',
          until: task.runAt,
        }
      : {
          code: 'delayed',
          message: `delayed: runs ${inTime(task.runAt - now)}`,
          short: 'delayed',
          until: task.runAt,
        };
  const limit = stats.settings.globalConcurrency;
  if (stats.counts.running >= limit)
    return {
      code: 'global-full',
      message: `the global limit is full (${stats.counts.running} of ${limit} running)`,
      short: `global full ${stats.counts.running}/${limit}`,
    };
  if (group && group.concurrency !== null && group.counts.running >= group.concurrency)
    return {
      code: 'group-full',
      message: `group ${task.group} is full (${group.counts.running} of ${group.concurrency} running)`,
      short: `group full ${group.counts.running}/${group.concurrency}`,
    };
  // the applied rate (spaced, or learned) has no room until rateFreeAt
  const rateFull = group?.rateFreeAt != null && group.rateFreeAt > now;
  const learned = group ? learnedOf(group) : null;
  if (group && learned?.lowered) {
    const c = learned.concurrency;
    const full = c !== null && c.now < c.cap && group.counts.running >= c.now;
    const spaced = learned.rate !== null && learned.rate.now < learned.rate.cap.limit - 0.05 && rateFull;
    if (full || spaced) {
      const next = spaced && !full ? `; next start ${inTime(group.rateFreeAt! - now)}` : '';
      return {
        code: 'adaptive-lowered',
        message:
          `group ${task.group}'s adaptive limit is lowered after throttles: ${learnedText(learned)}` +
          (full ? ` (${group.counts.running} running)` : '') +
          next,
        short: full ? `adaptive ${c.now}/${c.cap}` : 'adaptive rate lowered',
        ...(spaced && !full && { until: group.rateFreeAt! }),
      };
    }
  }
  if (group?.rate && rateFull) {
    const r = group.rate;
    const how =
      group.burst !== null && group.burst > 1 && !group.adaptive
        ? `bursts of ${Math.min(group.burst, r.limit)}`
        : `evenly spaced, one every ${formatDuration(Math.ceil(r.periodMs / r.limit))}`;
    return {
      code: 'rate-window',
      message: `group ${task.group} is at its rate (${formatRate(r)}, ${how}): next start ${inTime(group.rateFreeAt! - now)}`,
      short: `rate ${formatRate(r)} used`,
      until: group.rateFreeAt!,
    };
  }
  const short = stats.resources ? resourceShort(task, stats.resources) : null;
  if (short) return short;
  if (ctx.kinds && !ctx.kinds.includes(task.kind))
    return {
      code: 'no-worker',
      message: `no worker here has kind "${task.kind}" (start one with semaforo work --handlers DIR)`,
      short: 'no worker has its kind',
    };
  return {
    code: 'ready',
    message: 'ready: starts when a worker claims it (is `semaforo work` or the tray app running?)',
    short: 'ready',
  };
}

/**
 * The reason as a sentence that says "waiting" once (`run`'s note): a gate's or a resource's
 * reason starts with the word already.
 */
export function waitingSentence(message: string): string {
  return /^waiting\b/.test(message) ? message : `waiting: ${message}`;
}

/** The reason after a face's own "waiting" label (`show`'s line), without the word again. */
export function afterWaiting(message: string): string {
  return message.replace(/^waiting(?::\s*|\s+)/, '');
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
