/**
 * Schedules firing on one PostgreSQL queue while other hosts claim, end and enqueue in the same
 * groups: one firing enqueues the tasks of every due schedule, in many groups. Its counts rows
 * must be taken in (group, status) order, as every other writer takes them, or the server's
 * deadlock detector aborts one of two writers after deadlock_timeout (1 s), a stall of every
 * worker waiting behind them.
 */
import { describe, expect, it } from 'vitest';
import { planFires } from '../../electron/core/schedule/plan.ts';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import { NO_ALARMS } from '../../shared/schedule-alarms.ts';
import { pgAvailable } from '../conformance/pg-backend.ts';
import { deadlockDb, unlessDeadlocked } from './pg-deadlock-db.ts';
import { groupNames, LiveHosts, supply } from './pg-live-hosts.ts';

const db = deadlockDb('schedule');
const GROUPS = groupNames(24);
const QUEUES = 2;
const ROUNDS = 40;
const EVERY_MS = 1000;
/** The schedules' clock: a second further at each firing, so every schedule is due each time. */
const T0 = Date.parse('2026-01-01T00:00:00Z');

interface Figures {
  /** firings that enqueued tasks */
  fired: number;
  /** of those, the ones during which a live host's tick or enqueue was under way */
  overlapped: number;
  /** tasks the firings enqueued */
  tasks: number;
  /** calls that gave up after deadlocking on each of their attempts */
  gaveUp: number;
}

/**
 * Two schedules in each group, made in reverse name order: due at the same time, they fire in
 * id order, which runs through the groups backwards.
 */
async function schedules(store: TaskStore): Promise<void> {
  for (const group of GROUPS.toReversed())
    for (const k of [0, 1])
      await store.schedules.create(
        {
          name: `${group}-${k}`,
          cron: null,
          timezone: null,
          everyMs: EVERY_MS,
          task: { kind: 'fired', name: null, group, priority: 5, maxAttempts: 1, timeout: null, payload: {} },
          missed: 'skip',
          overlap: 'allow',
          enabled: true,
          nextDueAt: T0,
          alarms: NO_ALARMS,
        },
        T0,
      );
}

async function firings(store: TaskStore, live: LiveHosts, f: Figures): Promise<void> {
  for (let round = 1; round <= ROUNDS; round++) {
    const now = T0 + round * EVERY_MS;
    const mark = live.mark();
    const out = await unlessDeadlocked(f, () =>
      store.schedules.fireDue(now, (s, active) => planFires(s, now, active)),
    );
    if (!out?.taskIds.length) continue;
    f.fired++;
    f.tasks += out.taskIds.length;
    if (live.overlapped(mark)) f.overlapped++;
  }
}

async function queue(schema: string, f: Figures): Promise<void> {
  const hosts = await Promise.all(Array.from({ length: 4 }, () => openPgStore(db.url(schema))));
  try {
    await hosts[0]!.updateSettings({ globalConcurrency: 100_000 });
    await hosts[0]!.enqueue(supply(GROUPS, 20), 0);
    await schedules(hosts[0]!);
    const enqueued = f.tasks;
    const live = new LiveHosts(hosts.slice(1), { groups: GROUPS, claimMax: 6, kinds: ['work'] }, f);
    await live.around(firings(hosts[0]!, live, f));
    // the firings said what they enqueued
    expect((await hosts[0]!.listTasks({ kind: 'fired', limit: 1 })).total).toBe(f.tasks - enqueued);
  } finally {
    await Promise.all(hosts.map((s) => s.close()));
  }
}

describe.skipIf(!pgAvailable)(
  'schedules firing on PostgreSQL while other hosts claim, end and enqueue',
  () => {
    it('never deadlock', async () => {
      const f: Figures = { fired: 0, overlapped: 0, tasks: 0, gaveUp: 0 };
      const before = await db.deadlocks();
      for (let i = 0; i < QUEUES; i++) await queue(`q${i}`, f);
      await db.disconnected();
      const after = await db.deadlocks();

      expect({ deadlocks: after - before, gaveUp: f.gaveUp }).toEqual({ deadlocks: 0, gaveUp: 0 });
      // and the stress was one: every firing enqueued a task of each schedule, mostly beside a
      // live host's work
      expect({ fired: f.fired, tasks: f.tasks }).toEqual({
        fired: QUEUES * ROUNDS,
        tasks: QUEUES * ROUNDS * 2 * GROUPS.length,
      });
      expect(f.overlapped).toBeGreaterThan(f.fired / 2);
    });
  },
);
