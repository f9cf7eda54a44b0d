/**
 * For the tests that count PostgreSQL deadlocks: a database of the test file's own, so the
 * server's deadlock count for it (pg_stat_database) is the file's alone, with deadlock_timeout
 * cut to 100 ms, so a store that deadlocks shows it in seconds instead of a second a time.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { StorageError } from '../../electron/core/errors.ts';
import { pgCode } from '../../electron/core/store/postgres/db.ts';
import type { WorkerIdentity } from '../../electron/core/store/task-store.ts';
import { pgAdmin, pgAvailable, PG_TEST_URL } from '../conformance/pg-backend.ts';

/** Registers the database's creation and drop in the calling test file; `prefix` names it. */
export function deadlockDb(prefix: string) {
  const name = `semaforo_${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    if (!pgAvailable) return;
    await pgAdmin(async (c) => {
      await c.query(`CREATE DATABASE ${name}`);
      // the setting needs a superuser; without one the test only takes longer
      await c.query(`ALTER DATABASE ${name} SET deadlock_timeout = '100ms'`).catch(() => {});
    });
  });
  afterAll(async () => {
    if (pgAvailable) await pgAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });

  /** The one number `sql` reads (with the database's name as $1), asked from database `test`. */
  const number = (sql: string) =>
    pgAdmin(async (c) => Number((await c.query<{ n: string }>(sql, [name])).rows[0]?.n ?? 0));

  return {
    name,
    /** The database's URL, without a schema: for a plain client. */
    connectionString(): string {
      const u = new URL(PG_TEST_URL);
      u.pathname = `/${name}`;
      return u.toString();
    },
    /** A queue's URL in that database (schema `q` unless named). */
    url(schema = 'q'): string {
      const u = new URL(PG_TEST_URL);
      u.pathname = `/${name}`;
      u.searchParams.set('schema', schema);
      return u.toString();
    },
    /** Deadlocks the server counted in the database so far. */
    deadlocks: () => number('SELECT deadlocks AS n FROM pg_stat_database WHERE datname = $1'),
    /**
     * The (group, status) pairs of queue `schema` whose kept count (the counts table) is not the
     * tasks table's: none when every writer kept them.
     */
    async countsDrift(
      schema = 'q',
    ): Promise<{ group_name: string; status: string; kept: number; real: number }[]> {
      const c = new pg.Client({ connectionString: this.connectionString() });
      await c.connect();
      try {
        const r = await c.query<{ group_name: string; status: string; kept: string; real: string }>(
          `SELECT coalesce(c.group_name, t.group_name) AS group_name, coalesce(c.status, t.status) AS status,
             coalesce(c.n, 0) AS kept, coalesce(t.n, 0) AS real
           FROM (SELECT group_name, status, n FROM ${schema}.counts WHERE n <> 0) c
           FULL JOIN (SELECT group_name, status, count(*) AS n FROM ${schema}.tasks GROUP BY 1, 2) t
             ON t.group_name = c.group_name AND t.status = c.status
           WHERE coalesce(c.n, 0) <> coalesce(t.n, 0)`,
        );
        return r.rows.map((x) => ({ ...x, kept: Number(x.kept), real: Number(x.real) }));
      } finally {
        await c.end();
      }
    },
    /** The number of tasks in queue `schema`. */
    async tasks(schema = 'q'): Promise<number> {
      const c = new pg.Client({ connectionString: this.connectionString() });
      await c.connect();
      try {
        return Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.tasks`)).rows[0]!.n);
      } finally {
        await c.end();
      }
    },
    /** Waits until no connection is left on the database: a backend reports its deadlocks by exit. */
    async disconnected(): Promise<void> {
      while ((await number('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1')) > 0)
        await new Promise((r) => setTimeout(r, 50));
    },
  };
}

export const hostWorker = (id: string): WorkerIdentity => ({ id, pid: 1, host: `host-${id}` });

/**
 * Runs `call`; a deadlock on each of its attempts (the store retries one) adds one to
 * `f.gaveUp` and gives undefined.
 */
export async function unlessDeadlocked<T>(
  f: { gaveUp: number },
  call: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof StorageError && pgCode(e.cause) === '40P01')) throw e;
    f.gaveUp++;
    return undefined;
  }
}
