/**
 * The reaper's side of a lease. Lease expiry times are written by the owner with the owner's wall
 * clock and were compared with the reaper's: a reaper whose clock jumped forward (or a laptop
 * waking up, where every process's leases look an hour old at once) took live owners' tasks, and
 * an owner whose clock stepped back wrote leases that looked expired to everyone else.
 *
 * So a live-looking owner's tasks are reclaimed only when this process has itself watched that
 * owner's latest lease value stay unchanged (the owner renews every leaseMs / 3, and each renewal
 * changes the value) for at least `leaseMs` of its own monotonic time, and for as long as the
 * lease still had to run when first seen (so an owner with a longer lease than ours is given
 * its due). Wall-clock steps after the first sighting change nothing; a step before it can only
 * make the wait longer.
 */
import type { Clock, MonotonicClock } from '../clock.ts';

interface Sighting {
  lease: number;
  /** monotonic time when this lease value was first seen */
  since: number;
  /** how long it must stay unchanged, from `since` */
  waitMs: number;
  round: number;
}

export class LeaseWatch {
  private readonly seen = new Map<string, Sighting>();
  private round = 0;
  private readonly leaseMs: number;
  private readonly wall: Clock;
  private readonly mono: MonotonicClock;

  constructor(leaseMs: number, wall: Clock, mono: MonotonicClock) {
    this.leaseMs = leaseMs;
    this.wall = wall;
    this.mono = mono;
  }

  /** Starts one reap: owners not looked at before `endRound` are forgotten. */
  beginRound(): void {
    this.round++;
  }

  endRound(): void {
    for (const [owner, s] of this.seen) if (s.round !== this.round) this.seen.delete(owner);
  }

  /** Has this owner's latest lease (`lease`, epoch ms) sat unrenewed for long enough? */
  stalled(owner: string, lease: number): boolean {
    const now = this.mono.now();
    const s = this.seen.get(owner);
    if (!s || s.lease !== lease) {
      const left = lease - this.wall.now();
      this.seen.set(owner, { lease, since: now, waitMs: Math.max(this.leaseMs, left), round: this.round });
      return false;
    }
    s.round = this.round;
    return now - s.since >= s.waitMs;
  }
}
