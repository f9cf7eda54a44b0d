/**
 * The loops that race on one queue, in this process or in a child (fixtures/racer.ts): claimers
 * that take and finish tasks, and schedulers that fire due schedules on a simulated clock.
 */
import { planFires } from '../../electron/core/schedule/plan.ts';
import type { ClaimedTask, WorkerIdentity } from '../../electron/core/store/task-store.ts';
import type { Store } from './backends.ts';
import { done } from './shapes.ts';
import type { TaskWithHistory } from '../../shared/domain.ts';

/** The group of the gate tasks: one per claimer, each held until every one is taken. */
export const GATE = 'gate';

export function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ClaimerOptions {
  worker: WorkerIdentity;
  /**
   * Each tick's time: an ever-growing counter shared by every claimer, which orders their claims
   * and finishes on one timeline. Called for a claim once the tick holds the write lock, so
   * claims are stamped in commit order; ends may be stamped before (PostgreSQL commits successful
   * ends apart, without the lock), which only ever puts an end earlier than the claims that saw
   * its slot free.
   */
  stamp: () => number;
  seed: number;
  /** how many claimers race (as many gate tasks wait at priority 0) */
  gates: number;
  maxInFlight: number;
}

/**
 * Claims and finishes until nothing is left to claim, holding each task a random number of ticks.
 * First it takes one gate task and holds it until every gate is taken, so that all claimers are
 * running at once before the race starts. Returns the ids it claimed.
 */
export async function runClaimer(store: Store, o: ClaimerOptions): Promise<number[]> {
  const rand = random(o.seed);
  const tick = (finishes: ClaimedTask[], claimMax: number) =>
    store.tick({
      now: o.stamp,
      worker: o.worker,
      leaseMs: 1e12,
      claimMax,
      finishes: finishes.map((c) => done(c)),
    });
  let held: ClaimedTask[] = [];
  while (held.length === 0) {
    held = (await tick([], 1)).claimed;
    if (held.length === 0) await pause(5);
  }
  const claimed = held.map((c) => c.task.id);
  for (;;) {
    const gate = (await store.stats(0, 0)).groups.find((g) => g.name === GATE);
    if (gate && gate.counts.pending === 0) break;
    await pause(5);
  }
  for (;;) {
    const finishing = held.filter(() => rand() < 0.4);
    held = held.filter((c) => !finishing.includes(c));
    const out = await tick(finishing, Math.max(0, Math.ceil(rand() * o.maxInFlight) - held.length));
    if (out.applied.length !== finishing.length) throw new Error(`${o.worker.id} lost a finish`);
    held.push(...out.claimed);
    claimed.push(...out.claimed.map((c) => c.task.id));
    if (held.length === 0 && out.claimed.length === 0) {
      const counts = (await store.stats(0, 0)).counts;
      if (counts.pending + counts.retrying === 0) return claimed;
      await pause(2); // the others hold every slot
    }
  }
}

/** The most attempts that overlapped on the stamped timeline, overall and per group. */
export function peakOverlap(tasks: readonly TaskWithHistory[]): {
  total: number;
  byGroup: Map<string, number>;
} {
  const events: { at: number; delta: number; group: string }[] = [];
  for (const t of tasks) {
    for (const h of t.history) {
      if (h.type !== 'attempt') continue;
      events.push({ at: h.startedAt, delta: 1, group: t.group });
      events.push({ at: h.endedAt ?? Infinity, delta: -1, group: t.group });
    }
  }
  // A tick writes its finishes before its claims: at one stamp, ends come first.
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let now = 0;
  let total = 0;
  const inGroup = new Map<string, number>();
  const byGroup = new Map<string, number>();
  for (const e of events) {
    now += e.delta;
    total = Math.max(total, now);
    const g = (inGroup.get(e.group) ?? 0) + e.delta;
    inGroup.set(e.group, g);
    byGroup.set(e.group, Math.max(byGroup.get(e.group) ?? 0, g));
  }
  return { total, byGroup };
}

/** Fires due schedules on a clock that walks from `start` to `end` in random steps; the task ids. */
export async function runScheduler(
  store: Store,
  start: number,
  end: number,
  seed: number,
): Promise<number[]> {
  const rand = random(seed);
  const ids: number[] = [];
  const fire = async (now: number) =>
    ids.push(...(await store.schedules.fireDue(now, (s, active) => planFires(s, now, active))).taskIds);
  for (let t = start; t < end; t += 100 + Math.floor(rand() * 1400)) await fire(t);
  await fire(end);
  return ids;
}
