/**
 * Workers shutting down on one PostgreSQL queue while other hosts claim, end and enqueue in the
 * same groups: a shutdown gives its running tasks back (releaseLeases), each to its group's
 * waiting tasks. Its counts rows must be taken in (group, status) order, as every other writer
 * takes them, or the server's deadlock detector aborts one of two writers after
 * deadlock_timeout (1 s), a stall of every worker waiting behind them.
 */
import { describe, expect, it } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import { pgAvailable } from '../conformance/pg-backend.ts';
import { deadlockDb, hostWorker, unlessDeadlocked } from './pg-deadlock-db.ts';
import { groupNames, LiveHosts, supply } from './pg-live-hosts.ts';

const db = deadlockDb('release');
const GROUPS = groupNames(24);
const QUEUES = 2;
const RELEASERS = 3;
const ROUNDS = 25;

interface Figures {
  /** releases that gave tasks back */
  released: number;
  /** of those, the ones during which a live host's tick or enqueue was under way */
  overlapped: number;
  /** calls that gave up after deadlocking on each of their attempts */
  gaveUp: number;
}

/** A worker that takes a task in every group, then shuts down, giving them back; again. */
async function shutdowns(store: TaskStore, n: number, live: LiveHosts, f: Figures): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    const worker = hostWorker(`stopping-${n}-${round}`);
    const out = await unlessDeadlocked(f, () =>
      store.tick({
        now: Date.now,
        worker,
        leaseMs: 60_000,
        finishes: [],
        claimMax: GROUPS.length,
        kinds: ['held'],
      }),
    );
    // in id order, which runs through the groups backwards
    const ids = (out?.claimed ?? []).map((c) => c.task.id).sort((a, b) => a - b);
    if (ids.length === 0) continue;
    const mark = live.mark();
    const given = await unlessDeadlocked(f, () => store.releaseLeases(worker, ids, Date.now()));
    if (!given?.length) continue;
    f.released++;
    if (live.overlapped(mark)) f.overlapped++;
  }
}

async function queue(schema: string, f: Figures): Promise<void> {
  const hosts = await Promise.all(Array.from({ length: RELEASERS + 3 }, () => openPgStore(db.url(schema))));
  try {
    await hosts[0]!.updateSettings({ globalConcurrency: 100_000 });
    await hosts[0]!.enqueue([...supply(GROUPS, 20), ...supply(GROUPS, RELEASERS, 'held')], 0);
    const live = new LiveHosts(hosts.slice(RELEASERS), { groups: GROUPS, claimMax: 6, kinds: ['work'] }, f);
    await live.around(Promise.all(hosts.slice(0, RELEASERS).map((s, n) => shutdowns(s, n, live, f))));
  } finally {
    await Promise.all(hosts.map((s) => s.close()));
  }
}

describe.skipIf(!pgAvailable)('shutdowns on PostgreSQL while other hosts claim, end and enqueue', () => {
  it('give their tasks back without a deadlock', async () => {
    const f: Figures = { released: 0, overlapped: 0, gaveUp: 0 };
    const before = await db.deadlocks();
    for (let i = 0; i < QUEUES; i++) await queue(`q${i}`, f);
    await db.disconnected();
    const after = await db.deadlocks();

    expect({ deadlocks: after - before, gaveUp: f.gaveUp }).toEqual({ deadlocks: 0, gaveUp: 0 });
    // and the stress was one: most rounds gave tasks back, beside a live host's work
    expect(f.released).toBeGreaterThan((QUEUES * RELEASERS * ROUNDS) / 2);
    expect(f.overlapped).toBeGreaterThan(f.released / 2);
  });
});
