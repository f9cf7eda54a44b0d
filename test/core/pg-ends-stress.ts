/**
 * The run both tick-ends deadlock tests share: on each of a few queues, workers doing their
 * rounds of ends and claims beside live hosts (pg-live-hosts.ts), then the checks that nothing
 * was lost and the counts still equal the tasks table's.
 */
import { expect } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import type { NewTask, TaskStore } from '../../electron/core/store/task-store.ts';
import type { deadlockDb } from './pg-deadlock-db.ts';
import { LiveHosts, supply } from './pg-live-hosts.ts';

export interface EndFigures {
  /** ticks that wrote ends (and, where the test claims too, claimed) */
  rounds: number;
  /** of those, the ones during which a live host's tick or enqueue was under way */
  overlapped: number;
  /** ends handed to those ticks, and of them the ones applied */
  ends: number;
  applied: number;
  /** calls that gave up after deadlocking on each of their attempts */
  gaveUp: number;
}

export const noFigures = (): EndFigures => ({ rounds: 0, overlapped: 0, ends: 0, applied: 0, gaveUp: 0 });

/** A tick that wrote `ends`, `applied` of them, overlapping a live host's work or not. */
export function countRound(f: EndFigures, ends: number, applied: number, overlapped: boolean): void {
  f.rounds++;
  f.ends += ends;
  f.applied += applied;
  if (overlapped) f.overlapped++;
}

export interface EndsStress {
  db: ReturnType<typeof deadlockDb>;
  groups: readonly string[];
  /** how many workers are under test */
  workers: number;
  /** what each worker holds or takes first */
  seed: () => NewTask[];
  /** one worker's rounds: its store, its number, the live hosts, the figures, what it enqueued */
  work: (
    store: TaskStore,
    n: number,
    live: LiveHosts,
    f: EndFigures,
    enqueued: { n: number },
  ) => Promise<void>;
}

export async function stressQueue(schema: string, s: EndsStress, f: EndFigures): Promise<void> {
  const hosts = await Promise.all(Array.from({ length: s.workers + 3 }, () => openPgStore(s.db.url(schema))));
  const enqueued = { n: 0 };
  let live: LiveHosts | undefined;
  try {
    await hosts[0]!.updateSettings({ globalConcurrency: 100_000 });
    const first = [...supply(s.groups, 20), ...Array.from({ length: s.workers }, s.seed).flat()];
    enqueued.n += (await hosts[0]!.enqueue(first, 0)).length;
    live = new LiveHosts(
      hosts.slice(s.workers),
      { groups: s.groups, claimMax: s.groups.length, kinds: ['work'] },
      f,
    );
    await live.around(Promise.all(hosts.slice(0, s.workers).map((h, n) => s.work(h, n, live!, f, enqueued))));
  } finally {
    await Promise.all(hosts.map((h) => h.close()));
  }
  // no task lost, and the counts still those of the tasks table
  expect(await s.db.tasks(schema)).toBe(enqueued.n + live!.enqueued);
  expect(await s.db.countsDrift(schema)).toEqual([]);
}

/** `queues` queues stressed in turn: the figures, and the deadlocks the server counted meanwhile. */
export async function stressQueues(
  queues: number,
  s: EndsStress,
): Promise<{ f: EndFigures; deadlocks: number }> {
  const f = noFigures();
  const before = await s.db.deadlocks();
  for (let i = 0; i < queues; i++) await stressQueue(`q${i}`, s, f);
  await s.db.disconnected();
  return { f, deadlocks: (await s.db.deadlocks()) - before };
}
