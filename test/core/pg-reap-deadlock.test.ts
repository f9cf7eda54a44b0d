/**
 * The reaper and the claims of other hosts on one PostgreSQL queue, overlapping: a reap ends the
 * leases of gone owners in many groups while claims take tasks in those groups and live owners
 * end theirs. Both write the per-(group, status) counts rows (statement triggers), and a lock
 * order that differs makes the server's deadlock detector abort one after deadlock_timeout (1 s),
 * a stall of every worker waiting behind it. The queue gets a database of its own, so the
 * server's deadlock count for it (pg_stat_database) is this test's alone.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import type { ClaimedTask, TaskStore } from '../../electron/core/store/task-store.ts';
import { pgAvailable } from '../conformance/pg-backend.ts';
import { done, ended, task } from '../conformance/shapes.ts';
import { deadlockDb, hostWorker as worker, unlessDeadlocked as counting } from './pg-deadlock-db.ts';

const db = deadlockDb('reap');
const url = () => db.url();
const GROUPS = Array.from({ length: 12 }, (_, i) => `g${String(i).padStart(2, '0')}`);
const REAPS = 25;
const LEASE_MS = 60_000;

/**
 * `n` tasks of `kind` in each group, their ids running through the groups backwards: the order
 * in which a reap ends them (id order) is then the reverse of the order in which a claim or an
 * end takes the groups' counts rows (by name).
 */
const supply = (n: number, kind: string) =>
  Array.from({ length: n }, (_, k) =>
    GROUPS.toReversed().map((group) =>
      task({ kind, group, name: `${kind}-${group}-${k}`, maxAttempts: 1000 }),
    ),
  ).flat();

/**
 * How the live owners end their tasks: `apart`, all successful, so each tick writes its ends in a
 * statement of their own and then claims under the claim lock (tick-apart.ts); `together`, half
 * of them retries, so each tick writes its ends under the lock too, then claims. Either way each
 * tick is followed by an enqueue of a task in every group.
 */
type Ends = 'apart' | 'together';

interface Figures {
  /** reaps that ended something */
  reaps: number;
  /** of those, the ones during which a live owner's tick was under way */
  overlapped: number;
  /** calls that gave up after deadlocking on each of their attempts */
  gaveUp: number;
}

/**
 * Owners that take tasks in every group and vanish, one after another, each reaped while the live
 * owners claim and end: a reap ends the leases in id order, so across the groups out of the
 * order in which a claim or an end takes their counts rows.
 */
async function stress(reaper: TaskStore, gone: TaskStore, live: TaskStore[], ends: Ends, reaps: number) {
  const f: Figures = { reaps: 0, overlapped: 0, gaveUp: 0 };
  let liveTicks = 0;
  let stop = false;
  let liveInFlight = 0;
  const reap = async () => {
    for (let round = 0; round < reaps; round++) {
      await counting(f, () =>
        gone.tick({
          now: Date.now,
          worker: worker(`gone-${ends}-${round}`),
          leaseMs: LEASE_MS,
          finishes: [],
          claimMax: 24,
          kinds: ['gone'],
        }),
      );
      const ticksBefore = liveTicks + liveInFlight;
      // A reap that waited too long for a row a tick held leaves its work to the next: ask again.
      let ids: unknown[] | undefined;
      for (let tries = 0; tries < 50 && (ids === undefined || ids.length === 0); tries++)
        ids = await counting(f, () => reaper.reclaimLost(Date.now(), (o) => o.id.startsWith('gone-')));
      if (ids === undefined || ids.length === 0) continue;
      f.reaps++;
      if (liveInFlight > 0 || liveTicks + liveInFlight > ticksBefore) f.overlapped++;
    }
    stop = true;
  };
  const work = async (store: TaskStore, n: number) => {
    let held: ClaimedTask[] = [];
    while (!stop) {
      liveInFlight++;
      try {
        const out = await counting(f, () =>
          store.tick({
            now: Date.now,
            worker: worker(`live-${n}`),
            leaseMs: LEASE_MS,
            finishes: held.map((c, k) =>
              ends === 'together' && k % 2 === 0 ? ended(c, 'retrying', 'retry', { runAt: 0 }) : done(c),
            ),
            claimMax: 24,
            kinds: ['work'],
          }),
        );
        held = out?.claimed ?? [];
      } finally {
        liveInFlight--;
        liveTicks++;
      }
      await counting(f, () => store.enqueue(supply(1, 'work'), Date.now()));
    }
  };
  await Promise.all([reap(), ...live.map((s, n) => work(s, n))]);
  return f;
}

describe.skipIf(!pgAvailable)('reaping on PostgreSQL while other hosts claim and end', () => {
  it('never deadlocks with a claim or an end', async () => {
    const hosts = await Promise.all(Array.from({ length: 5 }, () => openPgStore(url())));
    const [reaper, gone, ...live] = hosts as [TaskStore, TaskStore, ...TaskStore[]];
    await reaper.updateSettings({ globalConcurrency: 100_000 });
    // the gone owners' tasks come back after each reap, to be taken by the next
    await reaper.enqueue([...supply(20, 'work'), ...supply(2, 'gone')], 0);
    const before = await db.deadlocks();
    const apart = await stress(reaper, gone, live, 'apart', REAPS);
    const together = await stress(reaper, gone, live, 'together', REAPS);
    await Promise.all(hosts.map((s) => s.close()));
    await db.disconnected();
    const after = await db.deadlocks();

    expect(after - before).toBe(0);
    expect(apart.gaveUp + together.gaveUp).toBe(0);
    // and the stress was one: every round reaped, mostly while a live owner's tick was under way
    expect([apart.reaps, together.reaps]).toEqual([REAPS, REAPS]);
    expect(apart.overlapped).toBeGreaterThan(REAPS / 2);
    expect(together.overlapped).toBeGreaterThan(REAPS / 2);
  });
});

describe.skipIf(!pgAvailable)('a reap that meets a row another transaction holds', () => {
  it("leaves it to a later round instead of holding every host's claims behind it", async () => {
    const stores = await Promise.all(Array.from({ length: 3 }, () => openPgStore(url())));
    const [reaper, gone, other] = stores as [TaskStore, TaskStore, TaskStore];
    await reaper.enqueue([task({ kind: 'held', name: 'lost' }), task({ kind: 'free', name: 'free' })], 0);
    const tick = (store: TaskStore, id: string, kind: string) =>
      store.tick({
        now: Date.now,
        worker: worker(id),
        leaseMs: LEASE_MS,
        finishes: [],
        claimMax: 1,
        kinds: [kind],
      });
    const [lost] = (await tick(gone, 'gone-held', 'held')).claimed;
    // Another transaction (a renewal, an operator's action) holds the lost task's row, and stays open.
    const holder = new pg.Client({ connectionString: db.connectionString() });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM q.tasks WHERE id = $1 FOR UPDATE', [lost!.task.id]);
      // The reap, holding the claim lock, would wait for as long as that lasts: it gives up instead.
      expect(await reaper.reclaimLost(Date.now(), (o) => o.id === 'gone-held')).toEqual([]);
      expect((await tick(other, 'other', 'free')).claimed.map((c) => c.task.name)).toEqual(['free']);
    } finally {
      await holder.end();
    }
    expect(await reaper.reclaimLost(Date.now(), (o) => o.id === 'gone-held')).toEqual([
      { id: lost!.task.id, status: 'pending' },
    ]);
    await Promise.all(stores.map((s) => s.close()));
  });
});
