import { describe, expect, it } from 'vitest';
import { ClaimPlan, type ClaimCandidate, type ClaimGroup } from '../../electron/core/policy/claim-plan.ts';

const group = (name: string, over: Partial<ClaimGroup> = {}): ClaimGroup => ({
  name,
  concurrency: null,
  rate: null,
  paused: false,
  blockedUntil: null,
  ...over,
});
const task = (id: number, group_name: string, priority = 5, run_at = 0): ClaimCandidate => ({
  id,
  priority,
  run_at,
  group_name,
});
const plan = (over: Partial<ConstructorParameters<typeof ClaimPlan>[0]> = {}) =>
  new ClaimPlan({
    globalConcurrency: 3,
    paused: false,
    runningTotal: 0,
    claimMax: 10,
    now: 1_000,
    queueNow: 1_000,
    ...over,
  });

describe('the claim plan', () => {
  it('gives no room when the queue is paused, full, or the worker has no free slot', () => {
    expect(plan({ paused: true }).room).toBe(0);
    expect(plan({ runningTotal: 3 }).room).toBe(0);
    expect(plan({ runningTotal: 5 }).room).toBe(0);
    expect(plan({ claimMax: 0 }).room).toBe(0);
    expect(plan({ runningTotal: 1, claimMax: 1 }).room).toBe(1);
    expect(plan({ runningTotal: 1 }).room).toBe(2);
  });

  it('holds a paused group, and a cooling-down one until its block ends', () => {
    const p = plan();
    expect(p.groupRoom(group('a', { paused: true }), 0)).toBe(0);
    expect(p.wakeAt).toBeNull();
    expect(p.groupRoom(group('b', { blockedUntil: 5_000 }), 0)).toBe(0);
    expect(p.wakeAt).toBe(5_000);
    expect(p.groupRoom(group('c', { blockedUntil: 1_000 }), 0)).toBe(3);
  });

  it('cuts a group to its concurrency, never below zero when it is over it', () => {
    const p = plan();
    expect(p.groupRoom(group('a', { concurrency: 2 }), 1)).toBe(1);
    expect(p.groupRoom(group('a', { concurrency: 1 }), 3)).toBe(0);
    expect(p.groupRoom(group('a', { concurrency: 10 }), 0)).toBe(3);
  });

  it('cuts to the rate window, and wakes when its oldest start leaves it', () => {
    const p = plan();
    const g = group('a', { rate: { limit: 2, periodMs: 1_000 } });
    expect(p.windowStart(g)).toBe(0);
    expect(p.rateRoom(g, 3, 1, 400)).toBe(1);
    expect(p.rateRoom(g, 3, 2, 400)).toBe(0);
    expect(p.wakeAt).toBe(1_400);
    expect(p.windowStart(group('b'))).toBeNull();
  });

  it('judges shared times on the queue clock and wakes on the host clock', () => {
    // the database's clock runs 10 s ahead of this host's
    const p = plan({ now: 1_000, queueNow: 11_000 });
    expect(p.groupRoom(group('a', { blockedUntil: 5_000 }), 0)).toBe(3);
    expect(p.groupRoom(group('b', { blockedUntil: 12_000 }), 0)).toBe(0);
    expect(p.wakeAt).toBe(2_000);
    const r = group('c', { rate: { limit: 1, periodMs: 1_000 } });
    expect(p.windowStart(r)).toBe(10_000);
    expect(p.rateRoom(r, 1, 1, 10_500)).toBe(0);
    expect(p.wakeAt).toBe(1_500);
  });

  it('takes the best candidates across groups, each group cut to its room, all to the claim', () => {
    const p = plan({ globalConcurrency: 4 });
    p.offer('a', 1, [task(1, 'a', 5, 10), task(2, 'a', 5, 20)]);
    p.offer('b', 3, [task(3, 'b', 9), task(4, 'b', 5, 15), task(5, 'b', 0, 99)]);
    p.offer('c', 0, [task(6, 'c', 0)]);
    expect(p.choose().map((c) => c.id)).toEqual([5, 1, 4, 3]);
    expect(plan({ globalConcurrency: 2 }).choose()).toEqual([]);
  });

  it('breaks ties by run_at, then id', () => {
    const p = plan();
    p.offer('a', 3, [task(9, 'a', 5, 10), task(7, 'a', 5, 10), task(8, 'a', 5, 5)]);
    expect(p.choose().map((c) => c.id)).toEqual([8, 7, 9]);
  });

  it('wakes for a delayed task only when it is due later', () => {
    const p = plan();
    p.dueAt(null);
    p.dueAt(900);
    expect(p.wakeAt).toBeNull();
    p.dueAt(3_000);
    p.dueAt(2_000);
    expect(p.wakeAt).toBe(2_000);
  });

  it('says when ends still being written could change what it chooses', () => {
    const free = plan({ globalConcurrency: 1_000, runningTotal: 100, claimMax: 100 });
    const a = group('a', { concurrency: 300 });
    // every room at claimMax or more: the same choice either way (a rate window is no room)
    expect(free.endsCouldWiden([{ group: a, running: 200 }])).toBe(false);
    expect(
      free.endsCouldWiden([{ group: group('b', { rate: { limit: 1, periodMs: 1000 } }), running: 99 }]),
    ).toBe(false);
    // a group whose running tasks may be the ending ones, short of claimMax
    expect(free.endsCouldWiden([{ group: a, running: 201 }])).toBe(true);
    // the global room short of claimMax
    expect(plan({ globalConcurrency: 150, runningTotal: 100, claimMax: 100 }).endsCouldWiden([])).toBe(true);
    // a resource the ending tasks may hold
    const withResources = plan({
      globalConcurrency: 1_000,
      claimMax: 10,
      resources: { capacity: new Map([['r', 5]]), held: new Map() },
    });
    expect(withResources.endsCouldWiden([])).toBe(true);
  });
});
