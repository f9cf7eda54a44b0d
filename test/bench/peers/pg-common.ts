/** What the PostgreSQL trials share: the server, a schema of each trial's own, and its removal. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server and database the PostgreSQL section uses (SEMAFORO_BENCH_PG overrides). */
export const BENCH_PG_URL = process.env.SEMAFORO_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

export const freshSchema = (system: string) => `bench_${system}_${randomBytes(4).toString('hex')}`;

export async function dropSchema(schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: BENCH_PG_URL });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await c.end();
  }
}

/** Why the PostgreSQL section cannot run here, or null. */
export async function pgUnavailable(): Promise<string | null> {
  const c = new pg.Client({ connectionString: BENCH_PG_URL, connectionTimeoutMillis: 3000 });
  c.on('error', () => {});
  try {
    await c.connect();
    const v = await c.query<{ v: string }>('SHOW server_version');
    return v.rows.length ? null : 'no answer';
  } catch (e) {
    return `PostgreSQL not reachable at ${BENCH_PG_URL} (${(e as Error).message})`;
  } finally {
    await c.end().catch(() => {});
  }
}

/** Fills `n` in batches of 1,000 with `add` (not timed). */
export async function fill(n: number, add: (count: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i += 1000) await add(Math.min(1000, n - i));
}
