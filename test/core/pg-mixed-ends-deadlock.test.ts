/**
 * Ends that go under the claim lock (paused time, quota holds, Retry-After blocks, failures,
 * retries, adaptive learning), beside other hosts' ends written apart, enqueues and an
 * operator's bulk cancels, retries and removals, on one queue: no deadlock, no call giving up,
 * and the counts equal to the tasks (before the tick's ends went in one statement and ahead of
 * its claim, 16 deadlocks a run).
 */
import { describe, expect, it } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import type { ClaimedTask, Finish, TaskStore } from '../../electron/core/store/task-store.ts';
import { pgAvailable } from '../conformance/pg-backend.ts';
import { done, ended } from '../conformance/shapes.ts';
import { deadlockDb, hostWorker, unlessDeadlocked } from './pg-deadlock-db.ts';
import { groupNames, LiveHosts, supply } from './pg-live-hosts.ts';

const db = deadlockDb('mixedends');
const GROUPS = groupNames(16);
const ROUNDS = 40;
const f = { gaveUp: 0 };

function endOf(c: ClaimedTask, i: number): Finish {
  switch (i % 5) {
    case 0:
      return { ...done(c), pausedMs: 3 };
    case 1:
      return { ...done(c), blockGroupUntil: 1 };
    case 2: {
      const end = ended(c, 'retrying', 'retry-after', { runAt: 0, blockGroupUntil: 1 });
      // a throttle signal, which an adaptive group learns from
      return end.status === 'done' ? end : { ...end, throttled: true };
    }
    case 3:
      return ended(c, 'failed', 'failed');
    default:
      return ended(c, 'retrying', 'retry', { runAt: 0 });
  }
}

async function ticker(store: TaskStore, n: number, stop: { done: boolean }) {
  const worker = hostWorker(`ticker-${n}`);
  let held: ClaimedTask[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const out = await unlessDeadlocked(f, () =>
      store.tick({
        now: Date.now,
        worker,
        leaseMs: 60_000,
        finishes: held.map(endOf),
        claimMax: 9,
        kinds: ['t'],
      }),
    );
    held = out?.claimed ?? [];
    await unlessDeadlocked(f, () => store.enqueue(supply(GROUPS, 1, 't', { maxAttempts: 1000 }), Date.now()));
  }
  stop.done = true;
}

async function operator(store: TaskStore, stop: { done: boolean }) {
  while (!stop.done) {
    await unlessDeadlocked(f, () =>
      store.actOnMatching('cancel', { status: ['pending', 'running'] }, Date.now(), { max: 5 }),
    );
    await unlessDeadlocked(f, () =>
      store.actOnMatching('retry', { status: ['failed', 'cancelled'] }, Date.now(), { max: 8 }),
    );
    await unlessDeadlocked(f, () =>
      store.actOnMatching('remove', { status: ['done'] }, Date.now(), { max: 10 }),
    );
  }
}

async function run(schema: string, adaptive: boolean) {
  const hosts = await Promise.all(Array.from({ length: 5 }, () => openPgStore(db.url(schema))));
  try {
    await hosts[0]!.updateSettings({ globalConcurrency: 100_000 });
    await hosts[0]!.enqueue([...supply(GROUPS, 10), ...supply(GROUPS, 4, 't', { maxAttempts: 1000 })], 0);
    if (adaptive) for (const g of GROUPS.slice(0, 4)) await hosts[0]!.updateGroup(g, { adaptive: true });
    const stop = { done: false };
    const live = new LiveHosts(hosts.slice(2, 4), { groups: GROUPS, claimMax: 16, kinds: ['work'] }, f);
    const a = Promise.all([ticker(hosts[0]!, 0, stop), ticker(hosts[1]!, 1, stop)]);
    await live.around(Promise.all([a, operator(hosts[4]!, stop)]));
  } finally {
    await Promise.all(hosts.map((s) => s.close()));
  }
  expect(await db.countsDrift(schema)).toEqual([]);
}

describe.skipIf(!pgAvailable)('mixed ends beside ends apart, enqueues and bulk actions', () => {
  it('never deadlock, in a queue without and one with adaptive groups', async () => {
    const before = await db.deadlocks();
    await run('q0', false);
    await run('q1', true);
    await db.disconnected();
    const after = await db.deadlocks();
    expect({ deadlocks: after - before, gaveUp: f.gaveUp }).toEqual({ deadlocks: 0, gaveUp: 0 });
  }, 300_000);
});
