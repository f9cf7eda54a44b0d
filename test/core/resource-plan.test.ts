/** The claim's named-resource rules, pure: all or nothing, weights, and the anti-starvation hold. */
import { describe, expect, it } from 'vitest';
import { ClaimPlan, type ClaimCandidate } from '../../electron/core/policy/claim-plan.ts';
import { RESERVE_AFTER_PASSES, ResourceLedger } from '../../electron/core/policy/resource-ledger.ts';
import { parseUsesText } from '../../shared/resources.ts';

const caps = (o: Record<string, number>) => new Map(Object.entries(o));
const u = (text: string) => parseUsesText(text) as { resource: string; weight: number }[];

function plan(capacity: Record<string, number>, held: Record<string, number> = {}) {
  return new ClaimPlan({
    globalConcurrency: 100,
    paused: false,
    runningTotal: 0,
    claimMax: 100,
    now: 1000,
    queueNow: 1000,
    resources: { capacity: caps(capacity), held: caps(held) },
  });
}
const cand = (id: number, uses: string, over: Partial<ClaimCandidate> = {}): ClaimCandidate => ({
  id,
  priority: 5,
  run_at: 0,
  group_name: 'g',
  uses: u(uses),
  resource_waits: 0,
  ...over,
});

describe('named resources in the claim', () => {
  it('parses and refuses uses as people write them', () => {
    expect(parseUsesText('nas, cpu:2')).toEqual([
      { resource: 'cpu', weight: 2 },
      { resource: 'nas', weight: 1 },
    ]);
    expect(parseUsesText('cpu:x')).toEqual({
      problem: '"cpu:x" is not NAME or NAME:WEIGHT (e.g. cpu:2,nas)',
    });
    expect(parseUsesText('a,a')).toEqual({ problem: 'names a twice' });
    // An empty --uses is a slip (a variable that was not set), not a way to say "none".
    expect(parseUsesText('')).toEqual({
      problem: 'names no resource (e.g. cpu:2,nas); leave it out for none',
    });
    expect(parseUsesText(' , ,')).toEqual({
      problem: 'names no resource (e.g. cpu:2,nas); leave it out for none',
    });
  });

  it('takes a task only when every resource it names has room, and counts weights', () => {
    const p = plan({ cpu: 4, db: 1 }, { db: 1 });
    p.offer('g', 10, [cand(1, 'cpu:3'), cand(2, 'cpu,db'), cand(3, 'cpu'), cand(4, 'cpu'), cand(5, 'gpu')]);
    expect(p.choose().map((c) => c.id)).toEqual([1, 3]);
    // gpu has no capacity: task 5 can never start, so it counts no passes
    expect(p.passedOver).toEqual([2, 4]);
  });

  it('lets no task that can never fit take the head of a line from a heavy one', () => {
    const p = plan({ cpu: 4 }, { cpu: 3 });
    p.offer('g', 10, [cand(1, 'cpu:5'), cand(2, 'cpu:4'), cand(3, 'cpu'), cand(4, 'cpu')]);
    expect(p.choose().map((c) => c.id)).toEqual([3]);
    // the heavy task heads the cpu line and counts its pass (before: the cpu:5 took it, for ever)
    expect(p.passedOver).toEqual([2]);
  });

  it(`holds back a task's needs after ${RESERVE_AFTER_PASSES} passes, for those after it only`, () => {
    const offer = (waits: number) => {
      const p = plan({ cpu: 4 }, { cpu: 2 });
      p.offer('g', 10, [cand(1, 'cpu:4', { resource_waits: waits }), cand(2, 'cpu'), cand(3, 'cpu')]);
      return p.choose().map((c) => c.id);
    };
    expect(offer(RESERVE_AFTER_PASSES - 1)).toEqual([2, 3]);
    expect(offer(RESERVE_AFTER_PASSES)).toEqual([]);
    // A task before it in claim order is not held back.
    const p = plan({ cpu: 4 }, { cpu: 2 });
    p.offer('g', 10, [cand(1, 'cpu:4', { resource_waits: 9, priority: 5 }), cand(2, 'cpu', { priority: 1 })]);
    expect(p.choose().map((c) => c.id)).toEqual([2]);
  });

  it('honours a reserving task this worker was not offered, only where its group has room', () => {
    const reserver = cand(9, 'cpu:4', { resource_waits: RESERVE_AFTER_PASSES, run_at: -1, group_name: 'r' });
    const p = plan({ cpu: 4 }, { cpu: 2 });
    p.offer('g', 10, [cand(2, 'cpu')]);
    p.offer('r', 1, []);
    p.holdBack([reserver]);
    expect(p.choose()).toEqual([]);
    const closed = plan({ cpu: 4 }, { cpu: 2 });
    closed.offer('g', 10, [cand(2, 'cpu')]);
    closed.holdBack([reserver]); // its group is paused or full: it holds nothing back
    expect(closed.choose().map((c) => c.id)).toEqual([2]);
  });

  it('never reserves what cannot fit, so a too-large task blocks no one', () => {
    const l = new ResourceLedger(caps({ cpu: 2 }), caps({}));
    expect(l.reserve(u('cpu:3'), 99)).toBe(false);
    expect(l.reserve(u('gpu'), 99)).toBe(false);
    expect(l.short(u('cpu:2'))).toEqual([]);
    expect(l.short(u('cpu:3,gpu'))).toEqual(['cpu', 'gpu']);
  });

  it('reads more candidates per group only when resources exist', () => {
    expect(plan({ cpu: 1 }).readLimit(2)).toBeGreaterThan(2);
    const bare = new ClaimPlan({
      globalConcurrency: 3,
      paused: false,
      runningTotal: 0,
      claimMax: 3,
      now: 0,
      queueNow: 0,
    });
    expect(bare.readLimit(2)).toBe(2);
  });
});
