/**
 * Deleting tasks on one PostgreSQL queue while other hosts claim, end and enqueue in the same
 * groups: retention's purge takes the ended tasks of every group, an operator's delete waiting
 * ones. The delete trigger must take the per-(group, status) counts rows in (group, status)
 * order, as every other writer does, or the server's deadlock detector aborts one of two
 * writers after deadlock_timeout (1 s), a stall of every worker waiting behind them.
 */
import { describe, expect, it } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import type { ClaimedTask, TaskStore } from '../../electron/core/store/task-store.ts';
import { pgAvailable } from '../conformance/pg-backend.ts';
import { done, task } from '../conformance/shapes.ts';
import { deadlockDb, hostWorker as worker, unlessDeadlocked } from './pg-deadlock-db.ts';

const db = deadlockDb('delete');
const GROUPS = Array.from({ length: 24 }, (_, i) => `g${String(i).padStart(2, '0')}`);
/** Queues stressed one after another: how a table's rows lie decides the old trigger's order. */
const QUEUES = 3;
/** Two purging hosts and two deleting ones, each deleting this many times a queue. */
const DELETERS = 4;
const ROUNDS = 25;
const LEASE_MS = 60_000;

/** One task in each group, `n` times, ids running through the groups backwards. */
const supply = (n: number) =>
  Array.from({ length: n }, (_, k) =>
    GROUPS.toReversed().map((group) => task({ kind: 'work', group, name: `${group}-${k}` })),
  ).flat();

interface Figures {
  /** purges and deletes that deleted something */
  deleted: number;
  /** of those, the ones during which a live host's tick or enqueue was under way */
  overlapped: number;
  /** calls that gave up after deadlocking on each of their attempts */
  gaveUp: number;
}

async function stress(deleters: TaskStore[], live: TaskStore[], f: Figures): Promise<void> {
  let stop = false;
  let liveCalls = 0;
  let inFlight = 0;
  const busy = async <T>(call: () => Promise<T>) => {
    inFlight++;
    try {
      return await unlessDeadlocked(f, call);
    } finally {
      inFlight--;
      liveCalls++;
    }
  };
  // Ends written apart and claims of a few groups at a time (a claim holds its counts rows
  // until its commit), then an enqueue in every group.
  const work = async (store: TaskStore, n: number) => {
    let held: ClaimedTask[] = [];
    while (!stop) {
      const out = await busy(() =>
        store.tick({
          now: Date.now,
          worker: worker(`live-${n}`),
          leaseMs: LEASE_MS,
          finishes: held.map((c) => done(c)),
          claimMax: 6,
        }),
      );
      held = out?.claimed ?? [];
      await busy(() => store.enqueue(supply(1), Date.now()));
    }
  };
  const remove = async (store: TaskStore, purge: boolean) => {
    for (let round = 0; round < ROUNDS; round++) {
      const before = liveCalls + inFlight;
      // until there is something to delete
      let n: number | undefined;
      for (let tries = 0; tries < 100 && !n; tries++)
        n = await unlessDeadlocked(f, async () =>
          purge
            ? await store.purgeFinished(Date.now() + 1)
            : (await store.actOnMatching('remove', { status: ['pending'] }, Date.now(), { max: 24 })).ids
                .length,
        );
      if (!n) continue;
      f.deleted++;
      if (inFlight > 0 || liveCalls + inFlight > before) f.overlapped++;
    }
  };
  await Promise.all([
    (async () => {
      await Promise.all(deleters.map((s, i) => remove(s, i % 2 === 0)));
      stop = true;
    })(),
    ...live.map((s, n) => work(s, n)),
  ]);
}

/** A queue of its own in the test's database, its deleters and 3 live hosts. */
async function queue(schema: string, f: Figures): Promise<void> {
  const hosts = await Promise.all(Array.from({ length: DELETERS + 3 }, () => openPgStore(db.url(schema))));
  try {
    await hosts[0]!.updateSettings({ globalConcurrency: 100_000 });
    await hosts[0]!.enqueue(supply(20), 0);
    await stress(hosts.slice(0, DELETERS), hosts.slice(DELETERS), f);
  } finally {
    await Promise.all(hosts.map((s) => s.close()));
  }
}

describe.skipIf(!pgAvailable)('deleting tasks on PostgreSQL while other hosts claim, end and enqueue', () => {
  it('never deadlocks', async () => {
    const f: Figures = { deleted: 0, overlapped: 0, gaveUp: 0 };
    const before = await db.deadlocks();
    for (let i = 0; i < QUEUES; i++) await queue(`q${i}`, f);
    await db.disconnected();
    const after = await db.deadlocks();

    expect({ deadlocks: after - before, gaveUp: f.gaveUp }).toEqual({ deadlocks: 0, gaveUp: 0 });
    // and the stress was one: most rounds deleted something, beside a live host's work
    expect(f.deleted).toBeGreaterThan((QUEUES * DELETERS * ROUNDS) / 2);
    expect(f.overlapped).toBeGreaterThan(f.deleted / 2);
  });
});
