/**
 * Workers whose ticks write their ends under the claim lock (paused time, quota holds, retries:
 * what tick-apart.ts keeps off the ends written apart) and claim, on one PostgreSQL queue, while
 * other hosts claim, write their successful ends apart and enqueue in the same groups. The ends
 * take the counts rows of the groups they end in, the claim those of the groups it takes from:
 * in one transaction, two statements, their order is not (group, status) order overall, as the
 * other hosts' ends' is, and the server's deadlock detector aborts one of two writers after
 * deadlock_timeout (1 s), a stall of every worker behind them.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimedTask, Finish, TaskStore } from '../../electron/core/store/task-store.ts';
import { pgAvailable } from '../conformance/pg-backend.ts';
import { done, ended } from '../conformance/shapes.ts';
import { deadlockDb, hostWorker, unlessDeadlocked } from './pg-deadlock-db.ts';
import { countRound, stressQueues, type EndFigures } from './pg-ends-stress.ts';
import { groupNames, type LiveHosts, supply } from './pg-live-hosts.ts';

const db = deadlockDb('claimends');
const GROUPS = groupNames(24);
const QUEUES = 2;
const TICKERS = 2;
const ROUNDS = 30;
/** Tasks a ticker takes a tick: a few groups at a time, so its ends and its claim are in different ones. */
const CLAIM = 7;

/** Successes with paused time or a quota hold (long past: written, holds nothing), and a retry. */
function endOf(c: ClaimedTask, i: number): Finish {
  switch (i % 4) {
    case 0:
      return { ...done(c), pausedMs: 3 };
    case 1:
      return { ...done(c), blockGroupUntil: 1 };
    case 2:
      return { ...done(c), pausedMs: 3 };
    default:
      return ended(c, 'retrying', 'retry', { runAt: 0 });
  }
}

const heldSupply = () => supply(GROUPS, 1, 'ticking', { maxAttempts: 1000 });

/** A worker that ends what it holds and takes a task in every group, in one tick, again and again. */
async function tickers(
  store: TaskStore,
  n: number,
  live: LiveHosts,
  f: EndFigures,
  enqueued: { n: number },
): Promise<void> {
  const worker = hostWorker(`ticker-${n}`);
  let held: ClaimedTask[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const finishes = held.map(endOf);
    const mark = live.mark();
    const out = await unlessDeadlocked(f, () =>
      store.tick({
        now: Date.now,
        worker,
        leaseMs: 60_000,
        finishes,
        claimMax: CLAIM,
        kinds: ['ticking'],
      }),
    );
    held = out?.claimed ?? [];
    if (out && finishes.length > 0 && held.length > 0) {
      countRound(f, finishes.length, out.applied.length, live.overlapped(mark));
    }
    const added = await unlessDeadlocked(f, () => store.enqueue(heldSupply(), Date.now()));
    enqueued.n += added?.length ?? 0;
  }
}

const stress = { db, groups: GROUPS, workers: TICKERS, seed: heldSupply, work: tickers };

describe.skipIf(!pgAvailable)(
  'ends under the claim lock, then a claim, on PostgreSQL while other hosts end apart',
  () => {
    it('never deadlock', async () => {
      const { f, deadlocks } = await stressQueues(QUEUES, stress);

      expect({ deadlocks, gaveUp: f.gaveUp }).toEqual({ deadlocks: 0, gaveUp: 0 });
      // every end was written by the worker holding its lease
      expect(f.applied).toBe(f.ends);
      // and the stress was one: most ticks ended and claimed in many groups, beside a live host's work
      expect(f.rounds).toBeGreaterThan((QUEUES * TICKERS * ROUNDS) / 2);
      expect(f.ends).toBeGreaterThan(f.rounds * (CLAIM / 2));
      expect(f.overlapped).toBeGreaterThan(f.rounds / 2);
    });
  },
);
