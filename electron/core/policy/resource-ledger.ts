/**
 * Named resources inside one claim: what is free of each, what a candidate needs, and the rule
 * that keeps a heavy task from being starved by a stream of light ones. Pure; the claim plan
 * (claim-plan.ts) asks it about each candidate in claim order.
 *
 * - All or nothing: a task starts only if every resource it names has its weight free; it takes
 *   them all in the same claim, so no task holds one resource while waiting for another (no
 *   deadlock). A resource nobody defined has no capacity: its tasks wait and say so.
 * - Anti-starvation: a task passed over for a resource in RESERVE_AFTER_PASSES claims reserves
 *   its weights: from then on every task after it in claim order sees that much less free, so
 *   the capacity freed by finishing holders collects for it instead of going to lighter tasks
 *   behind it. A task that could never fit (more than a capacity) reserves nothing. A claim
 *   counts a pass only for the first task (in claim order) each short resource turned away: the
 *   head of that resource's line. The ones behind it are counted once they are the head, so a
 *   claim writes a counter per short resource, not one per waiting task (measured: counting
 *   every task passed over halved a drain with a contended resource).
 */
import type { ResourceUse } from '../../../shared/domain.ts';

/** Claims that may pass a waiting task over for a resource before it holds capacity back. */
export const RESERVE_AFTER_PASSES = 3;

/**
 * At most this many reserving tasks, the first in claim order, are read by one claim, so its
 * cost does not grow with a backlog; one after them holds capacity back once it is among them.
 */
export const RESERVERS_READ = 64;

export class ResourceLedger {
  private readonly free = new Map<string, number>();
  private readonly capacity: ReadonlyMap<string, number>;

  /** `held`: the weight running tasks hold, by resource. */
  constructor(capacity: ReadonlyMap<string, number>, held: ReadonlyMap<string, number>) {
    this.capacity = capacity;
    for (const [name, c] of capacity) this.free.set(name, c - (held.get(name) ?? 0));
  }

  /** The resources named that lack the weight now (empty: it fits). */
  short(uses: readonly ResourceUse[]): string[] {
    return uses.filter((u) => (this.free.get(u.resource) ?? 0) < u.weight).map((u) => u.resource);
  }

  /** Every resource named exists and is large enough: the task can start some day. */
  canEverFit(uses: readonly ResourceUse[]): boolean {
    return uses.every((u) => (this.capacity.get(u.resource) ?? 0) >= u.weight);
  }

  /** A task starts: it holds its weights. */
  take(uses: readonly ResourceUse[]): void {
    for (const u of uses) this.free.set(u.resource, (this.free.get(u.resource) ?? 0) - u.weight);
  }

  /**
   * A task that waits `passes` claims and does not fit: once it has waited long enough, what it
   * needs is held back from the tasks after it (free may go below zero: nothing fits there).
   * Returns whether it reserved.
   */
  reserve(uses: readonly ResourceUse[], passes: number): boolean {
    if (passes < RESERVE_AFTER_PASSES || !this.canEverFit(uses)) return false;
    this.take(uses);
    return true;
  }
}
