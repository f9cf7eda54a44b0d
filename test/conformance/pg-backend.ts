/**
 * The PostgreSQL backend of the conformance suite, and the probe that decides whether it runs:
 * each queue is a fresh schema in database `test` (dropped afterwards). Where no PostgreSQL
 * answers, the PostgreSQL tests are left out with one `skipped:` line; under CI=true they run
 * anyway and fail, since CI must not pass without them.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore } from '../../electron/core/store/open-store.ts';

/** The server and database the tests use (SEMAFORO_TEST_PG overrides). */
export const PG_TEST_URL = process.env.SEMAFORO_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

async function reachable(): Promise<string | null> {
  const c = new pg.Client({ connectionString: PG_TEST_URL, connectionTimeoutMillis: 3000 });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.query('SELECT 1');
    return null;
  } catch (e) {
    return (e as Error).message || String(e);
  } finally {
    await c.end().catch(() => {});
  }
}

const why = await reachable();
/** Whether the PostgreSQL tests run in this process. */
export const pgAvailable = why === null || process.env.CI === 'true';
if (why !== null && !pgAvailable) console.log(`skipped: PostgreSQL not reachable at ${PG_TEST_URL} (${why})`);

/** A unique schema name for one test queue. */
export function freshSchemaName(prefix = 'conf'): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export function pgLocation(schema: string): string {
  const u = new URL(PG_TEST_URL);
  u.searchParams.set('schema', schema);
  return u.toString();
}

/** Runs `fn` on a client of its own as the tests' user, then closes it. */
export async function pgAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_TEST_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Runs `fn` as pgAdmin does, with `schema` first on the client's search path. */
export function pgInSchema<T>(schema: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  return pgAdmin(async (c) => {
    await c.query(`SET search_path TO ${schema}`);
    return fn(c);
  });
}

/** Drops a test queue's schema (every connection on it closed or not). */
export async function dropSchema(schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_TEST_URL });
  c.on('error', () => {});
  await c.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        return;
      } catch (e) {
        // a process still working in it (a failed test's worker) can deadlock the drop
        if (attempt >= 3 || (e as { code?: string }).code !== '40P01') throw e;
      }
    }
  } finally {
    await c.end();
  }
}

export const postgresBackend = {
  name: 'postgres',
  async create() {
    const schema = freshSchemaName();
    return { location: pgLocation(schema), destroy: () => dropSchema(schema) };
  },
  connect: (location: string) => openStore(location),
  rawSql: async (location: string, sql: string) => {
    await pgInSchema(new URL(location).searchParams.get('schema')!, (c) => c.query(sql));
  },
};
