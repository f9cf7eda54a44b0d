/**
 * The stores the conformance suite runs against. Adding a backend is one entry in `backends`:
 * how to create an empty queue, and how to open a connection on it (from this process or from a
 * child process, which gets the same `location`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScheduleStore } from '../../electron/core/store/schedule-store.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';

export interface Backend {
  name: string;
  /** A new, empty queue: where it lives, and how to delete it once every connection is closed. */
  create(): Promise<{ location: string; destroy(): Promise<void> }>;
  /** A connection on the queue at `location`, as a separate process would open it. */
  connect(location: string): Promise<Store>;
  /**
   * Deviations from the contract this backend is known to have: their tests expect failure on
   * it, so the suite stays green now and turns red once one is fixed (then drop it here).
   */
  knownDefects?: readonly KnownDefect[];
}

/** Ways a backend is known to break the contract, each held by a test named in its comment. */
export type KnownDefect =
  /** retryFailed records its `retried` action with attempt 0, not the attempt count at the time (reads) */
  | 'retryFailedActionAttempt'
  /** listTasks' search ignores case for ASCII letters only (SQLite's LIKE): `élan` misses `Élan` (reads) */
  | 'searchAsciiCaseOnly';

// ---------------------------------------------------------------------------------------------
// TEMPORARY SHIM until the async store contract (issue 19, item 1) is merged. At merge:
//   - `Store` becomes `TaskStore` (import it from task-store.ts; delete `Async`),
//   - `connectSqlite` becomes `openStore` from electron/core/store/open-store.ts,
//   - everything between the two rules goes.
// The tests use only this async shape, so they run unchanged on every backend.
type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K];
};

/** The async TaskStore contract: every method a Promise; `watch` instead of `dataVersion`. */
export type Store = Omit<Async<TaskStore>, 'schedules' | 'dataVersion'> & {
  readonly schedules: Async<ScheduleStore>;
  /** Calls `listener` when another connection commits; returns the unsubscribe. */
  watch(listener: () => void): () => void;
};

/** Every method of `target` as an async one: a throw becomes a rejection, as a real async call. */
function promised<T extends object>(target: T): Async<T> {
  return new Proxy(target, {
    get(t, key) {
      const v: unknown = Reflect.get(t, key);
      return typeof v === 'function' ? async (...args: unknown[]) => v.apply(t, args) : v;
    },
  }) as unknown as Async<T>;
}

async function connectSqlite(file: string): Promise<Store> {
  const sync = new SqliteTaskStore(file);
  const timers = new Set<ReturnType<typeof setInterval>>();
  const watch = (listener: () => void) => {
    let seen = sync.dataVersion();
    const timer = setInterval(() => {
      if (!sync.db.open) return;
      const v = sync.dataVersion();
      if (v !== seen) {
        seen = v;
        listener();
      }
    }, 10);
    timer.unref();
    timers.add(timer);
    return () => {
      clearInterval(timer);
      timers.delete(timer);
    };
  };
  const close = async () => {
    for (const t of timers) clearInterval(t);
    timers.clear();
    sync.close();
  };
  const store = promised(sync);
  const schedules = promised(sync.schedules);
  return new Proxy(store, {
    get(t, key) {
      if (key === 'watch') return watch;
      if (key === 'close') return close;
      if (key === 'schedules') return schedules;
      if (key === 'dataVersion') return undefined;
      return Reflect.get(t, key);
    },
  }) as unknown as Store;
}
// ---------------------------------------------------------------------------------------------

const sqlite: Backend = {
  name: 'sqlite',
  async create() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'semaforo-conformance-'));
    return {
      location: path.join(dir, 'queue.db'),
      destroy: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  },
  connect: connectSqlite,
  knownDefects: ['retryFailedActionAttempt', 'searchAsciiCaseOnly'],
};

export const backends: Backend[] = [sqlite];

export function backendNamed(name: string): Backend {
  const b = backends.find((x) => x.name === name);
  if (!b) throw new Error(`unknown backend "${name}"; known: ${backends.map((x) => x.name).join(', ')}`);
  return b;
}
