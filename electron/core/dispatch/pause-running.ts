/**
 * --pause-running: a machine gate that closes stops the running shell tasks of its scope on this
 * machine (SIGSTOP to the process group their command leads) and continues them (SIGCONT) when
 * it opens. The attempt's time stopped is recorded (its Finish's pausedMs) and its timeout is
 * suspended meanwhile; its lease is renewed as ever, since the worker is alive. JavaScript
 * handlers are never paused: nothing stops JavaScript from outside, and a handler frozen mid-call
 * would freeze the worker with it.
 *
 * The gates are read again every GATE_SAMPLE_MS while a shell task runs here: the claim judges
 * them only when this worker has room, and a full worker must still see its gate close.
 */
import type { MonotonicClock } from '../clock.ts';
import { formatElapsed } from '../../../shared/durations.ts';
import type { GateConfig } from '../../../shared/domain.ts';
import { signalGroup } from '../handlers/process-tree.ts';
import type { Logger } from '../logger.ts';
import { scopeOf, type GateVerdict } from '../store/gate-row.ts';
import type { TaskStore } from '../store/task-store.ts';
import type { Running } from './running-task.ts';

export interface PauseParts {
  monotonic: MonotonicClock;
  logger: Logger;
  store: Pick<TaskStore, 'listGates'>;
  /** the dispatcher's judgement of them (gate-watch.ts: its hysteresis, its log lines) */
  judge: (gates: readonly GateConfig[]) => GateVerdict;
  entries: () => Iterable<Running>;
  /** a gate opened: claim again */
  wake: () => void;
  /**
   * A `run`: the tasks running here are its caller's own command, whose stop must be said
   * (its other gate news is info there), not left as a silent freeze.
   */
  ownCommand?: boolean;
}

/** Stops a running shell task's process group, and its timeout with it. */
function pause(entry: Running, now: number): boolean {
  if (entry.pgid === null || entry.pausedAt !== null || entry.settled || entry.abort.aborted) return false;
  if (!signalGroup(entry.pgid, 'SIGSTOP')) return false;
  entry.pausedAt = now;
  entry.timeout?.pause();
  return true;
}

/** Continues a paused task (SIGCONT) and its timeout; returns how long this pause lasted. */
export function continueTask(entry: Running, now: number): number {
  if (entry.pausedAt === null) return 0;
  const ms = Math.max(0, now - entry.pausedAt);
  entry.pausedAt = null;
  entry.pausedMs += ms;
  if (entry.pgid !== null) signalGroup(entry.pgid, 'SIGCONT');
  entry.timeout?.resume();
  return ms;
}

/** The time the attempt has spent stopped so far, the pause under way included. */
export function pausedMsOf(entry: Running, now: number): number {
  return entry.pausedMs + (entry.pausedAt === null ? 0 : Math.max(0, now - entry.pausedAt));
}

export class RunningPauses {
  private readonly p: PauseParts;
  private checking = false;
  /** the worker is stopping: it pauses nothing more */
  private stopping = false;
  /** how many gates were closed at the last check: fewer now means claim again */
  private lastClosed = 0;

  constructor(parts: PauseParts) {
    this.p = parts;
  }

  /** Reads the gates and pauses or continues each shell task as its scope's gate says. */
  async check(): Promise<void> {
    const shells = [...this.p.entries()].filter((e) => e.pgid !== null && !e.settled);
    if (shells.length === 0 || this.checking || this.stopping) return;
    this.checking = true;
    try {
      const gates = await this.p.store.listGates();
      const verdict = this.p.judge(gates);
      const pausing = new Set(gates.filter((g) => g.pauseRunning).map((g) => scopeOf(g.group)));
      const now = this.p.monotonic.now();
      if (this.stopping) return;
      const say = (m: string) => (this.p.ownCommand ? this.p.logger.warn(m) : this.p.logger.info(m));
      for (const e of shells) {
        const group = e.claim.task.group;
        const held =
          (verdict.queueClosed && pausing.has('')) || (verdict.closedGroups.has(group) && pausing.has(group));
        if (held && pause(e, now)) say(`task ${e.claim.task.id} paused: its machine gate closed`);
        else if (!held && e.pausedAt !== null) {
          const ms = continueTask(e, now);
          say(`task ${e.claim.task.id} continued after ${formatElapsed(ms)} paused`);
        }
      }
      const closed = (verdict.queueClosed ? 1 : 0) + verdict.closedGroups.size;
      if (closed < this.lastClosed) this.p.wake();
      this.lastClosed = closed;
    } finally {
      this.checking = false;
    }
  }

  /** A stopping worker continues every paused task, so it can finish or end on its SIGTERM. */
  continueAll(): void {
    this.stopping = true;
    const now = this.p.monotonic.now();
    for (const e of this.p.entries()) continueTask(e, now);
  }
}
