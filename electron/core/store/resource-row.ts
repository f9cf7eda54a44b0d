/**
 * Named resources as every backend stores them: a task's uses as one text column (`uses`, JSON
 * pairs `[["cpu",2],["nas",1]]`, NULL for none), the `resources` table (name, capacity), and the
 * ResourceInfo the faces see, built from the rows each store reads in its own SQL. What a task
 * holds is not stored apart: a running task holds its uses, so its end, a reclaim of its lease
 * and a cancel release them with the status change itself.
 */
import { RESOURCE_WAITERS_SHOWN, type ResourceInfo, type ResourceUse } from '../../../shared/domain.ts';

export function encodeUses(uses: readonly ResourceUse[] | undefined): string | null {
  return uses && uses.length > 0 ? JSON.stringify(uses.map((u) => [u.resource, u.weight])) : null;
}

/**
 * A stored `uses` read back. The column is input from outside (a hand edit): a value that is not
 * pairs reads as a resource nobody defines, so the task waits and says why instead of running
 * unguarded.
 */
export function decodeUses(text: string | null): ResourceUse[] {
  if (text === null) return [];
  try {
    const v = JSON.parse(text) as unknown;
    if (Array.isArray(v))
      return v.map((p: unknown) => {
        if (!Array.isArray(p) || typeof p[0] !== 'string' || !Number.isSafeInteger(p[1])) throw new Error();
        return { resource: p[0], weight: p[1] as number };
      });
  } catch {
    // below
  }
  return [{ resource: 'unreadable-uses', weight: 1 }];
}

/** The weight running tasks hold, by resource. */
export function heldOf(running: readonly { uses: string | null }[]): Map<string, number> {
  const held = new Map<string, number>();
  for (const r of running)
    for (const u of decodeUses(r.uses)) held.set(u.resource, (held.get(u.resource) ?? 0) + u.weight);
  return held;
}

export interface ResourceRow {
  name: string;
  capacity: number;
}

/** A task naming resources, as the reads for `stats` return it (waiting ones in claim order). */
export interface UsingRow {
  id: number;
  status: string;
  uses: string | null;
  resource_waits: number;
}

/** Each resource with its holders (running tasks) and waiters (pending or retrying ones). */
export function resourceInfos(
  resources: readonly ResourceRow[],
  using: readonly UsingRow[],
  reserveAfter: number,
): ResourceInfo[] {
  const byName = new Map<string, ResourceInfo>(
    resources.map((r) => [
      r.name,
      { name: r.name, capacity: r.capacity, held: 0, holders: [], waiters: [], waiting: 0, reservedFor: [] },
    ]),
  );
  for (const t of using) {
    for (const u of decodeUses(t.uses)) {
      const info = byName.get(u.resource);
      if (!info) continue;
      if (t.status === 'running') {
        info.held += u.weight;
        info.holders.push({ taskId: t.id, weight: u.weight });
        continue;
      }
      info.waiting++;
      if (info.waiters.length < RESOURCE_WAITERS_SHOWN) info.waiters.push({ taskId: t.id, weight: u.weight });
      if (t.resource_waits >= reserveAfter && u.weight <= info.capacity) info.reservedFor.push(t.id);
    }
  }
  return [...byName.values()];
}
