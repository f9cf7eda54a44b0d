/**
 * The busy side of the PostgreSQL deadlock tests: hosts that end what they hold, claim and
 * enqueue in many groups without a pause, while the writer under test does its rounds beside
 * them. Every one of their writes takes counts rows in (group, status) order.
 */
import type { ClaimedTask, Finish, NewTask, TaskStore } from '../../electron/core/store/task-store.ts';
import { done, task } from '../conformance/shapes.ts';
import { hostWorker, unlessDeadlocked } from './pg-deadlock-db.ts';

export const groupNames = (n: number) =>
  Array.from({ length: n }, (_, i) => `g${String(i).padStart(2, '0')}`);

/**
 * One task in each group, `n` times, their ids running through the groups backwards: written
 * in id order, one statement a task, they take the groups' counts rows against name order.
 */
export const supply = (groups: readonly string[], n: number, kind = 'work', more: Partial<NewTask> = {}) =>
  Array.from({ length: n }, (_, k) =>
    groups.toReversed().map((group) => task({ kind, group, name: `${kind}-${group}-${k}`, ...more })),
  ).flat();

export interface LiveOptions {
  groups: readonly string[];
  /** tasks a tick claims (a claim holds its counts rows until it commits) */
  claimMax: number;
  /** kinds they claim; absent: any */
  kinds?: readonly string[];
  /** how a held task ends; absent: done (so the ends are written apart from the claim) */
  end?: (c: ClaimedTask, i: number) => Finish;
}

export class LiveHosts {
  /** tasks the hosts enqueued (committed) */
  enqueued = 0;
  private calls = 0;
  private inFlight = 0;
  private stopped = false;

  private readonly stores: readonly TaskStore[];
  private readonly o: LiveOptions;
  /** where a call that deadlocked on each of its attempts is counted */
  private readonly f: { gaveUp: number };

  constructor(stores: readonly TaskStore[], o: LiveOptions, f: { gaveUp: number }) {
    this.stores = stores;
    this.o = o;
    this.f = f;
  }

  /** Keeps the hosts busy until `actors` are done. */
  async around(actors: Promise<unknown>): Promise<void> {
    this.stopped = false;
    await Promise.all([
      actors.finally(() => {
        this.stopped = true;
      }),
      ...this.stores.map((s, n) => this.work(s, n)),
    ]);
  }

  /** Taken before an actor's call, for overlapped(). */
  mark(): number {
    return this.calls + this.inFlight;
  }

  /** Whether a live host's call was under way at some point since `mark`. */
  overlapped(mark: number): boolean {
    return this.inFlight > 0 || this.calls + this.inFlight > mark;
  }

  private async busy<T>(call: () => Promise<T>): Promise<T | undefined> {
    this.inFlight++;
    try {
      return await unlessDeadlocked(this.f, call);
    } finally {
      this.inFlight--;
      this.calls++;
    }
  }

  private async work(store: TaskStore, n: number): Promise<void> {
    const end = this.o.end ?? ((c: ClaimedTask) => done(c));
    let held: ClaimedTask[] = [];
    while (!this.stopped) {
      const out = await this.busy(() =>
        store.tick({
          now: Date.now,
          worker: hostWorker(`live-${n}`),
          leaseMs: 60_000,
          finishes: held.map(end),
          claimMax: this.o.claimMax,
          ...(this.o.kinds && { kinds: this.o.kinds }),
        }),
      );
      held = out?.claimed ?? [];
      const added = await this.busy(() => store.enqueue(supply(this.o.groups, 1), Date.now()));
      this.enqueued += added?.length ?? 0;
    }
  }
}
