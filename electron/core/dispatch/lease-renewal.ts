/**
 * Renewing the leases of the tasks a dispatcher runs, and what a renewal finds: tasks it lost
 * (taken back, or another owner's now), tasks the user cancelled, and strays.
 *
 * A stray is a task leased to this worker that it never started: a claim committed although the
 * worker saw the tick fail (the connection died during COMMIT and the outcome could not be
 * asked). Renewals would keep it leased, and since the owner is alive no reaper takes it back:
 * it would stay `running` for as long as the worker lives. So, after a failed tick, renewals go
 * on for two leases even with nothing running, and give strays back. A task claimed by a tick
 * still under way is not a stray: the check is skipped when a tick ran meanwhile, and the store
 * lists only tasks claimed a lease or more ago.
 */
import type { MonotonicClock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { TaskStore, WorkerIdentity } from '../store/task-store.ts';

export interface LeaseRenewalParts {
  store: Pick<TaskStore, 'renewLeases' | 'releaseLeases'>;
  worker: WorkerIdentity;
  logger: Logger;
  monotonic: MonotonicClock;
  leaseMs: number;
  /** the wall-clock time to renew from */
  now: () => number;
  /** the time to stamp a release with */
  dueNow: () => number;
  onChange: (ids: number[]) => void;
  /** the ids this worker runs, and those that ended here and wait for their finish to be written */
  runningIds: () => number[];
  /** how many ticks have started, and whether one is under way */
  ticks: () => { started: number; underWay: boolean };
  lost: (id: number) => void;
  cancelled: (id: number) => void;
}

export class LeaseRenewal {
  private readonly p: LeaseRenewalParts;
  private renewing = false;
  private checkStraysUntil = -Infinity;

  constructor(parts: LeaseRenewalParts) {
    this.p = parts;
  }

  /** A tick failed: its claim may have committed all the same. */
  tickFailed(): void {
    this.checkStraysUntil = this.p.monotonic.now() + 2 * this.p.leaseMs;
  }

  /** Resolves to whether it wrote (false: nothing to renew, or a renewal under way). */
  async renew(): Promise<boolean> {
    if (this.renewing) return false;
    const ids = this.p.runningIds();
    if (ids.length === 0 && this.p.monotonic.now() > this.checkStraysUntil) return false;
    this.renewing = true;
    const before = this.p.ticks();
    let out;
    try {
      out = await this.p.store.renewLeases(this.p.worker, ids, this.p.now(), this.p.leaseMs);
    } finally {
      this.renewing = false;
    }
    for (const id of out.lost) this.p.lost(id);
    for (const id of out.cancelRequested) this.p.cancelled(id);
    const after = this.p.ticks();
    if (out.strays.length === 0 || before.underWay || after.underWay || after.started !== before.started)
      return true;
    this.p.logger.warn(
      `task(s) ${out.strays.join(', ')} were leased to this worker but never started here ` +
        '(a claim whose commit could not be confirmed): giving them back',
    );
    const released = await this.p.store.releaseLeases(this.p.worker, out.strays, this.p.dueNow());
    if (released.length) this.p.onChange(released);
    return true;
  }
}
