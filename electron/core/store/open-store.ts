/**
 * The one place that picks a backend: the queue's location decides it. A file path (or
 * `:memory:`) opens SQLite; a `postgres://` URL
 * (`?schema=NAME` for one of several queues in a database) opens PostgreSQL. Nothing else outside
 * store/sqlite imports from it (eslint.config.js; docs/ARCHITECTURE.md, "Layers").
 */
import { openSqliteStore, type SqliteStoreOptions } from './sqlite/async-store.ts';
import type { TaskStore } from './task-store.ts';

export interface OpenStoreOptions {
  /** SQLite's own settings (busy timeout, durability for comparisons) */
  sqlite?: Pick<SqliteStoreOptions, 'busyTimeoutMs' | 'durability'>;
  /**
   * How often the store checks for other processes' commits (what `watch` reports) where it
   * cannot be told of them (SQLite: where the -wal file cannot be watched).
   * @defaultValue 20
   */
  watchIntervalMs?: number;
  /** Told, once per distinct message, of a failure of the store's own background work. */
  onBackgroundError?: (message: string) => void;
  /** Told once of how the store works here that is worth knowing, not an error (it polls for other processes' changes instead of watching). */
  onNotice?: (message: string) => void;
  /**
   * A queue on a server (postgres://) is not created: a NotFoundError if it is not there (a
   * mistyped ?schema= must not look like an empty queue). Files: the CLI checks their folder.
   */
  existingOnly?: boolean;
}

const URL_RE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Opens the queue at `location`; rejects with a StorageError or SchemaTooNewError if it cannot. */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<TaskStore> {
  if (URL_RE.test(location)) {
    const scheme = location.slice(0, location.indexOf(':')).toLowerCase();
    if (scheme === 'postgres' || scheme === 'postgresql') {
      // Loaded only for a PostgreSQL queue: `pg` and its store are ~5 ms of every SQLite start.
      const { openPgStore } = await import('./postgres/pg-store.ts');
      return openPgStore(location, {
        onBackgroundError: options.onBackgroundError,
        existingOnly: options.existingOnly,
      });
    }
    throw new Error(
      `cannot open a queue at a ${scheme}:// URL: give the queue as a file path or a postgres:// URL`,
    );
  }
  return openSqliteStore(location, {
    ...options.sqlite,
    watchIntervalMs: options.watchIntervalMs,
    onBackgroundError: options.onBackgroundError,
    onWatchNotice: options.onNotice,
  });
}
