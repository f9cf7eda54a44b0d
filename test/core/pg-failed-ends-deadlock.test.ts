/**
 * Workers ending attempts as failures on one PostgreSQL queue (retries, Retry-After reschedules,
 * permanent failures, beside successes) while other hosts claim, write their successful ends
 * apart from the claim lock (tick-apart.ts) and enqueue in the same groups. A tick's ends take
 * the counts rows of every group they end in; taken in several statements, their order is not
 * (group, status) order overall, as every other writer's is, and the server's deadlock detector
 * aborts one of two writers after deadlock_timeout (1 s), a stall of every worker behind them.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimedTask, Finish, TaskStore } from '../../electron/core/store/task-store.ts';
import { pgAvailable } from '../conformance/pg-backend.ts';
import { done, ended } from '../conformance/shapes.ts';
import { deadlockDb, hostWorker, unlessDeadlocked } from './pg-deadlock-db.ts';
import { countRound, stressQueues, type EndFigures } from './pg-ends-stress.ts';
import { groupNames, type LiveHosts, supply } from './pg-live-hosts.ts';

const db = deadlockDb('failedends');
const GROUPS = groupNames(24);
const QUEUES = 2;
const ENDERS = 2;
const ROUNDS = 25;

/**
 * How the `i`th end of a tick (by group name backwards) ends: a success in the first groups, then
 * every kind of failure in turn; the Retry-After block long past (written, holds nothing).
 */
function endOf(c: ClaimedTask, i: number): Finish {
  if (i < 2) return done(c);
  switch (i % 3) {
    case 0:
      return ended(c, 'retrying', 'retry', { runAt: 0 });
    case 1:
      return ended(c, 'retrying', 'retry-after', { runAt: 0, blockGroupUntil: 1 });
    default:
      return ended(c, 'failed', 'failed');
  }
}

const endingSupply = () => supply(GROUPS, 1, 'ending', { maxAttempts: 1000 });

/** A worker that takes a task in every group, then ends them all, in group order backwards. */
async function enders(
  store: TaskStore,
  n: number,
  live: LiveHosts,
  f: EndFigures,
  enqueued: { n: number },
): Promise<void> {
  const worker = hostWorker(`ender-${n}`);
  const tick = (finishes: Finish[], claimMax: number) =>
    unlessDeadlocked(f, () =>
      store.tick({ now: Date.now, worker, leaseMs: 60_000, finishes, claimMax, kinds: ['ending'] }),
    );
  for (let round = 0; round < ROUNDS; round++) {
    const held = ((await tick([], GROUPS.length))?.claimed ?? []).toSorted((a, b) =>
      a.task.group < b.task.group ? 1 : -1,
    );
    if (held.length === 0) continue;
    const finishes = held.map(endOf);
    const mark = live.mark();
    const out = await tick(finishes, 0);
    if (out) {
      countRound(f, finishes.length, out.applied.length, live.overlapped(mark));
    }
    const added = await unlessDeadlocked(f, () => store.enqueue(endingSupply(), Date.now()));
    enqueued.n += added?.length ?? 0;
  }
}

const stress = { db, groups: GROUPS, workers: ENDERS, seed: endingSupply, work: enders };

describe.skipIf(!pgAvailable)(
  'failed ends on PostgreSQL while other hosts claim, end apart and enqueue',
  () => {
    it('never deadlock', async () => {
      const { f, deadlocks } = await stressQueues(QUEUES, stress);

      expect({ deadlocks, gaveUp: f.gaveUp }).toEqual({ deadlocks: 0, gaveUp: 0 });
      // every end was written by the worker holding its lease
      expect(f.applied).toBe(f.ends);
      // and the stress was one: most rounds ended a task in every group, beside a live host's work
      expect(f.rounds).toBeGreaterThan((QUEUES * ENDERS * ROUNDS) / 2);
      expect(f.ends).toBeGreaterThan(f.rounds * (GROUPS.length / 2));
      expect(f.overlapped).toBeGreaterThan(f.rounds / 2);
    });
  },
);
