/**
 * Renewing the leases of the tasks a dispatcher runs, and what a renewal finds: tasks it lost
 * (taken back, or another owner's now), tasks the user cancelled, and strays.
 *
 * A stray is a task leased to this worker that it never started: a claim committed although the
 * worker saw the tick fail (the connection died during COMMIT and the outcome could not be
 * asked). Renewals would keep it leased, and since the owner is alive no reaper takes it back:
 * it would stay `running` for as long as the worker lives. So, after a failed tick, renewals go
 * on for two leases even with nothing running, and give strays back.
 *
 * A task claimed by a tick still under way is not a stray, though its claim can look a lease
 * old (the wall clock stepped, the tick hung). A stray is given back at once when no tick ran
 * during its renewal; otherwise it is a suspect until a later renewal, read after every tick
 * started before the first had ended, finds the same claim still leased and not running: the
 * tick that made it ended without starting it. A claim is named by the attempt it opened (a later
 * claim of the same task opens another), and the release holds only while that attempt is open.
 * A busy worker, always in a tick, gives its strays back within a renewal or two that way.
 */
import type { MonotonicClock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { StrayClaim, TaskStore, WorkerIdentity } from '../store/task-store.ts';

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
  /** how many ticks have started and ended (one at a time), and whether one is under way */
  ticks: () => TickCount;
  /** false once the worker stops: strays are then left to the reaper */
  givingBackStrays: () => boolean;
  lost: (id: number) => void;
  cancelled: (id: number) => void;
}

export interface TickCount {
  started: number;
  ended: number;
  underWay: boolean;
}

/** Strays a renewal found while a tick ran, and how many ticks had started by its end. */
interface Suspects {
  claims: readonly StrayClaim[];
  ticksStarted: number;
}

export class LeaseRenewal {
  private readonly p: LeaseRenewalParts;
  private renewing = false;
  private checkStraysUntil = -Infinity;
  private suspects: Suspects | null = null;

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
    try {
      // A release decided on this read must not meet another renewal's: held until it is done.
      await this.renewOnce(ids);
    } finally {
      this.renewing = false;
    }
    return true;
  }

  private async renewOnce(ids: number[]): Promise<void> {
    const before = this.p.ticks();
    const out = await this.p.store.renewLeases(this.p.worker, ids, this.p.now(), this.p.leaseMs);
    for (const id of out.lost) this.p.lost(id);
    for (const id of out.cancelRequested) this.p.cancelled(id);
    const after = this.p.ticks();
    // Stopping, a handler that ignored its abort is no longer listed as running, yet it runs.
    const strays = this.p.givingBackStrays() ? this.strays(out.strays, before, after) : [];
    if (strays.length === 0) return;
    this.p.logger.warn(
      `task(s) ${strays.map((s) => s.id).join(', ')} were leased to this worker but never started here ` +
        '(a claim whose commit could not be confirmed): giving them back',
    );
    const released = await this.p.store.releaseLeases(
      this.p.worker,
      strays.map((s) => s.id),
      this.p.dueNow(),
      // each only while the claim judged a stray still holds it
      strays.every((s) => s.attemptId !== null) ? strays.map((s) => s.attemptId!) : undefined,
    );
    if (released.length) this.p.onChange(released);
  }

  /** The strays to give back now, of those this renewal found (and the suspects it keeps). */
  private strays(found: readonly StrayClaim[], before: TickCount, after: TickCount): StrayClaim[] {
    const quiet = !before.underWay && !after.underWay && after.started === before.started;
    if (quiet) {
      this.suspects = null;
      return [...found];
    }
    const earlier = this.suspects;
    // Not yet: a tick started before the suspects were found may still bring them back.
    if (earlier !== null && before.ended < earlier.ticksStarted) return [];
    // Only a claim named by its attempt can be told from a later claim of the same task.
    const named = found.filter((s) => s.attemptId !== null);
    const same = new Set(earlier?.claims.map((c) => c.attemptId));
    const confirmed = named.filter((s) => same.has(s.attemptId));
    const rest = named.filter((s) => !same.has(s.attemptId));
    this.suspects = rest.length > 0 ? { claims: rest, ticksStarted: after.started } : null;
    return confirmed;
  }
}
