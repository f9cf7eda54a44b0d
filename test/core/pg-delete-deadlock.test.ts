/**
 * Deleting tasks on one PostgreSQL queue while other hosts claim, end and enqueue in the same
 * groups: retention's purge takes the ended tasks of every group, an operator's delete waiting
 * ones. The delete trigger must take the per-(group, status) counts rows in (group, status)
 * order, as every other writer does, or the server's deadlock detector aborts one of two
 * writers after deadlock_timeout (1 s), a stall of every worker waiting behind them.
 */
import { describe, expect, it } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import { pgAvailable } from '../conformance/pg-backend.ts';
import { deadlockDb, unlessDeadlocked } from './pg-deadlock-db.ts';
import { groupNames, LiveHosts, supply } from './pg-live-hosts.ts';

const db = deadlockDb('delete');
const GROUPS = groupNames(24);
/** Queues stressed one after another: how a table's rows lie decides the old trigger's order. */
const QUEUES = 3;
/** Two purging hosts and two deleting ones, each deleting this many times a queue. */
const DELETERS = 4;
const ROUNDS = 25;

interface Figures {
  /** purges and deletes that deleted something */
  deleted: number;
  /** of those, the ones during which a live host's tick or enqueue was under way */
  overlapped: number;
  /** calls that gave up after deadlocking on each of their attempts */
  gaveUp: number;
}

async function remove(store: TaskStore, purge: boolean, live: LiveHosts, f: Figures): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    const mark = live.mark();
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
    if (live.overlapped(mark)) f.overlapped++;
  }
}

/** A queue of its own in the test's database, its deleters and 3 live hosts. */
async function queue(schema: string, f: Figures): Promise<void> {
  const hosts = await Promise.all(Array.from({ length: DELETERS + 3 }, () => openPgStore(db.url(schema))));
  try {
    await hosts[0]!.updateSettings({ globalConcurrency: 100_000 });
    await hosts[0]!.enqueue(supply(GROUPS, 20), 0);
    // ends written apart and claims of a few groups at a time, then an enqueue in every group
    const live = new LiveHosts(hosts.slice(DELETERS), { groups: GROUPS, claimMax: 6 }, f);
    await live.around(Promise.all(hosts.slice(0, DELETERS).map((s, i) => remove(s, i % 2 === 0, live, f))));
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
