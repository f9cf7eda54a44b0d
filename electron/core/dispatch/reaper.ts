/**
 * The dispatcher's reaper, run every reapIntervalMs and at start, one round at a time: first it
 * rebases the queue's waits if the wall clock stepped back, then it returns to the queue the tasks
 * of other owners that are gone or whose lease stalled (LeaseWatch), once whatever their shell
 * tasks left running is stopped (OrphanReaper), and cancels the waiting tasks of gone `run`s.
 */
import type { Clock, MonotonicClock } from '../clock.ts';
import { findTagged, stopTagged } from '../handlers/attempt-tag.ts';
import type { Logger } from '../logger.ts';
import type { TaskStatus } from '../../../shared/domain.ts';
import type { LeaseHolder, ReclaimedTask, TaskStore, WorkerIdentity } from '../store/task-store.ts';
import { isOwnerProcessRunning } from '../worker-identity.ts';
import { LeaseWatch } from './lease-watch.ts';
import { OrphanReaper } from './orphan-reaper.ts';

export interface ReaperParts {
  store: TaskStore;
  worker: WorkerIdentity;
  clock: Clock;
  monotonic: MonotonicClock;
  logger: Logger;
  leaseMs: number;
  /** is this lease owner a process on this machine that is gone? */
  isOwnerDead: (owner: LeaseHolder) => boolean;
  /** whether a lease owner's process still runs on this machine (default: by its pid) */
  isOwnerRunning?: (owner: LeaseHolder) => boolean;
  /** the time reclaims are stamped with (the dispatcher's held-back wall clock) */
  dueNow: () => number;
  /** these tasks were taken back (to the queue, or ended) */
  onReclaimed: (ids: number[]) => void;
  /** something may be claimable now */
  wake: () => void;
  /** a leftover process was stopped: run a round at once (the dispatcher guards its errors) */
  reapSoon: () => void;
}

export class Reaper {
  private readonly p: ReaperParts;
  private readonly leases: LeaseWatch;
  private readonly orphans: OrphanReaper;
  private reaping = false;

  constructor(parts: ReaperParts) {
    this.p = parts;
    this.leases = new LeaseWatch(parts.leaseMs, parts.clock, parts.monotonic);
    this.orphans = new OrphanReaper({
      host: parts.worker.host,
      logger: parts.logger,
      graceMs: 2000,
      stillRuns: parts.isOwnerRunning ?? isOwnerProcessRunning,
      find: findTagged,
      stop: stopTagged,
      onStopped: () => parts.reapSoon(),
    });
  }

  async reap(): Promise<void> {
    if (this.reaping) return;
    this.reaping = true;
    let reclaimed: ReclaimedTask[];
    try {
      const step = await this.p.store.rebaseAfterClockStep(this.p.clock.now());
      if (step !== null) {
        this.p.logger.warn(
          `the wall clock stepped back ${step} ms: the queue's waits were moved back with it`,
        );
        this.p.wake();
      }
      this.leases.beginRound();
      reclaimed = await this.p.store.reclaimLost(this.p.dueNow(), (owner) => this.isLost(owner));
      this.leases.endRound();
    } finally {
      this.reaping = false;
    }
    if (reclaimed.length > 0) {
      this.p.logger.warn(reclaimedLine(reclaimed));
      this.p.onReclaimed(reclaimed.map((r) => r.id));
      this.p.wake();
    }
  }

  /** Another owner's tasks go back to the queue when its process is gone or its lease stalled. */
  private isLost(owner: LeaseHolder): boolean {
    if (owner.id === this.p.worker.id) return false;
    const dead = this.p.isOwnerDead(owner);
    const lease = owner.leaseExpiresAt;
    const stalled = !dead && typeof lease === 'number' && this.leases.stalled(owner.id, lease);
    return this.orphans.mayReclaim(owner, dead, stalled);
  }
}

/** What the store did to a task it took back, as the reap's line says it, in this order. */
const FATE: Partial<Record<TaskStatus, string>> = {
  pending: 'returned to the queue',
  failed: 'failed (no attempts left)',
  cancelled: 'cancelled',
};
const ORDER: string[] = Object.keys(FATE);
const rank = (s: TaskStatus) => (ORDER.includes(s) ? ORDER.indexOf(s) : ORDER.length);

/**
 * One line for a reap: the store returns a task to the queue, fails it (its lost attempt was its
 * last) or cancels it (a cancel asked meanwhile, or the `run` it was held for is gone).
 */
export function reclaimedLine(reclaimed: readonly ReclaimedTask[]): string {
  const byStatus = new Map<TaskStatus, number[]>();
  for (const r of reclaimed) byStatus.set(r.status, [...(byStatus.get(r.status) ?? []), r.id]);
  const parts = [...byStatus]
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([status, ids]) => `${ids.join(', ')} ${FATE[status] ?? `now ${status}`}`);
  return `took back ${reclaimed.length} task(s) of a worker or \`semaforo run\` gone or stalled: ${parts.join('; ')}`;
}
