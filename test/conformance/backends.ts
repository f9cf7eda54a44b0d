/**
 * The stores the conformance suite runs against. Adding a backend is one entry in `backends`:
 * how to create an empty queue, and how to open a connection on it (from this process or from a
 * child process, which gets the same `location`).
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../electron/core/store/open-store.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import { pgAvailable, postgresBackend } from './pg-backend.ts';

export interface Backend {
  name: string;
  /** A new, empty queue: where it lives, and how to delete it once every connection is closed. */
  create(): Promise<{ location: string; destroy(): Promise<void> }>;
  /** A connection on the queue at `location`, as a separate process would open it. */
  connect(location: string): Promise<Store>;
  /** Runs `sql` on the queue at `location` outside the store, as a hand edit or a bad restore would. */
  rawSql(location: string, sql: string): Promise<void>;
  /**
   * Deviations from the contract this backend is known to have: their tests expect failure on
   * it, so the suite stays green now and turns red once one is fixed (then drop it here).
   */
  knownDefects?: readonly KnownDefect[];
}

/** Ways a backend is known to break the contract, each held by a test named in its comment. */
export type KnownDefect =
  /** listTasks' search ignores case for ASCII letters only (SQLite's LIKE): `élan` misses `Élan` (reads) */
  'searchAsciiCaseOnly';

/** A backend's connection: the store contract itself. */
export type Store = TaskStore;

const sqlite: Backend = {
  name: 'sqlite',
  async create() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'semaforo-conformance-'));
    return {
      location: path.join(dir, 'queue.db'),
      destroy: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  },
  connect: (location) => openStore(location, { watchIntervalMs: 10 }),
  async rawSql(location, sql) {
    const db = new Database(location);
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
  },
  knownDefects: ['searchAsciiCaseOnly'],
};

export const backends: Backend[] = pgAvailable ? [sqlite, postgresBackend] : [sqlite];

export function backendNamed(name: string): Backend {
  const b = backends.find((x) => x.name === name);
  if (!b) throw new Error(`unknown backend "${name}"; known: ${backends.map((x) => x.name).join(', ')}`);
  return b;
}
