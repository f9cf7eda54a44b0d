/**
 * When a renewal gives strays back: at once when no tick ran beside it, and on a worker that is
 * always in a tick, once a later renewal finds the same claim still unstarted after every tick
 * that could have brought it back has ended.
 */
import { describe, expect, it } from 'vitest';
import { LeaseRenewal, type TickCount } from '../../electron/core/dispatch/lease-renewal.ts';
import type { RenewResult, StrayClaim } from '../../electron/core/store/task-store.ts';

const WORKER = { id: 'w', pid: 1, host: 'h' };

function rig() {
  const ticks: TickCount = { started: 0, ended: 0, underWay: false };
  let strays: StrayClaim[] = [];
  const released: number[][] = [];
  const conditions: (readonly number[] | undefined)[] = [];
  let giving = true;
  /** what happens to the ticks while the store renews */
  let during = () => {};
  const renewal = new LeaseRenewal({
    store: {
      renewLeases: async (): Promise<RenewResult> => {
        during();
        return { lost: [], cancelRequested: [], strays };
      },
      releaseLeases: async (_w, ids, _now, attemptIds) => {
        released.push([...ids]);
        conditions.push(attemptIds);
        return [...ids];
      },
    },
    worker: WORKER,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    monotonic: { now: () => 0 },
    leaseMs: 1000,
    now: () => 10_000,
    dueNow: () => 10_000,
    onChange: () => {},
    runningIds: () => [7],
    ticks: () => ({ ...ticks }),
    givingBackStrays: () => giving,
    lost: () => {},
    cancelled: () => {},
  });
  return {
    ticks,
    released,
    conditions,
    stop: () => (giving = false),
    renew: () => renewal.renew(),
    setStrays: (s: StrayClaim[]) => (strays = s),
    setDuring: (f: () => void) => (during = f),
  };
}

/** A tick starts (and is under way). */
const start = (t: TickCount) => {
  t.started++;
  t.underWay = true;
};
/** The tick under way ends and the next one starts (a busy worker is always in one). */
const nextTick = (t: TickCount) => {
  t.ended++;
  start(t);
};

describe('lease renewal and strays', () => {
  it('gives strays back at once when no tick ran during the renewal', async () => {
    const r = rig();
    r.setStrays([{ id: 3, attemptId: 50 }]);
    await r.renew();
    expect(r.released).toEqual([[3]]);
  });

  it('on a worker always in a tick, gives a stray back once a later renewal confirms it', async () => {
    const r = rig();
    r.setStrays([{ id: 3, attemptId: 50 }]);
    start(r.ticks);
    await r.renew();
    // a tick under way may still bring task 3 back: only a suspect
    expect(r.released).toEqual([]);
    // the next renewal begins while that tick still runs: not yet
    await r.renew();
    expect(r.released).toEqual([]);
    // that tick ended, another one runs: the claim it could have delivered is a stray
    nextTick(r.ticks);
    await r.renew();
    expect(r.released).toEqual([[3]]);
  });

  it('counts a tick started during the first renewal among those that must end first', async () => {
    const r = rig();
    r.setStrays([{ id: 3, attemptId: 50 }]);
    start(r.ticks);
    r.setDuring(() => {
      nextTick(r.ticks);
    });
    await r.renew();
    r.setDuring(() => {});
    // the tick that started during the renewal (the 2nd) has not ended
    await r.renew();
    expect(r.released).toEqual([]);
    nextTick(r.ticks);
    await r.renew();
    expect(r.released).toEqual([[3]]);
  });

  it('does not give back a later claim of the same task, nor a claim that reached its worker', async () => {
    const r = rig();
    r.setStrays([
      { id: 3, attemptId: 50 },
      { id: 4, attemptId: 60 },
    ]);
    start(r.ticks);
    await r.renew();
    nextTick(r.ticks);
    // task 3 was claimed again since (another attempt); task 4 now runs here
    r.setStrays([{ id: 3, attemptId: 90 }]);
    await r.renew();
    expect(r.released).toEqual([]);
    // the new claim of 3 is judged on its own: a suspect now, confirmed after the next tick
    nextTick(r.ticks);
    await r.renew();
    expect(r.released).toEqual([[3]]);
  });

  it('tells a later claim with the same start stamp from the first by its attempt', async () => {
    const r = rig();
    // tick 1 claimed task 3 (attempt 50), still under way
    r.setStrays([{ id: 3, attemptId: 50 }]);
    start(r.ticks);
    await r.renew();
    // tick 1 gave 3 back and ended; tick 2 claimed it again (attempt 51) and is about to start it
    nextTick(r.ticks);
    r.setStrays([{ id: 3, attemptId: 51 }]);
    await r.renew();
    expect(r.released).toEqual([]);
  });

  it('gives back only while the attempt judged a stray is still open', async () => {
    const r = rig();
    r.setStrays([{ id: 3, attemptId: 50 }]);
    await r.renew();
    expect(r.released).toEqual([[3]]);
    expect(r.conditions).toEqual([[50]]);
  });

  it('leaves strays alone once the worker stops (a handler that ignored its abort still runs)', async () => {
    const r = rig();
    r.stop();
    r.setStrays([{ id: 3, attemptId: 50 }]);
    await r.renew();
    expect(r.released).toEqual([]);
  });
});
