/**
 * Creates and migrates a queue's schema. The first process to open a queue creates it; two
 * starting at once must not both try, so every step runs in one transaction holding an advisory
 * lock keyed by the schema's name (other processes wait for it, then find the work done). Each
 * migration commits together with its version, so a crash leaves the old or the new schema.
 * Never edit a shipped migration: add the next one. The numbers are this store's own (kept in
 * `schema_version`; SQLite's in its user_version): both match through 4, and PostgreSQL's 5 to 7 are
 * storage settings and trigger changes with no SQLite counterpart, so a SQLite 5 would be a new
 * PostgreSQL 8.
 */
import { NotFoundError } from '../../../../shared/errors.ts';
import { SchemaTooNewError } from '../../errors.ts';
import type { PgDb, Queryable } from './db.ts';
import { SCHEMA_V1 } from './schema.ts';
import { SCHEMA_V2 } from './schema-v2.ts';
import { SCHEMA_V3 } from './schema-v3.ts';
import { SCHEMA_V4 } from './schema-v4.ts';
import { SCHEMA_V5 } from './schema-v5.ts';
import { SCHEMA_V6 } from './schema-v6.ts';
import { SCHEMA_V7 } from './schema-v7.ts';

interface Migration {
  version: number;
  description: string;
  sql: string;
}

const MIGRATIONS: readonly Migration[] = [
  { version: 1, description: 'tasks, history, groups, counters, settings, schedules', sql: SCHEMA_V1 },
  { version: 2, description: "the counters' update trigger in linear time", sql: SCHEMA_V2 },
  { version: 3, description: 'adaptive groups: learned limits and their history', sql: SCHEMA_V3 },
  {
    version: 4,
    description: "machine gates' idle condition and pausing; the time an attempt was paused",
    sql: SCHEMA_V4,
  },
  {
    version: 5,
    description: 'running tasks out of tasks_status; history pages with room to close attempts in place',
    sql: SCHEMA_V5,
  },
  { version: 6, description: 'ended tasks out of tasks_status (tasks_ended holds them)', sql: SCHEMA_V6 },
  { version: 7, description: "the counters' delete trigger in (group, status) order", sql: SCHEMA_V7 },
];

export const LATEST_PG_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The schema's version (0: none yet), read in the caller's transaction. */
async function versionOf(q: Queryable, schema: string): Promise<number> {
  // A plain catalog query, not to_regclass: that answers from this connection's catalog cache,
  // which does not learn of a schema another process created while we waited for the lock.
  const [row] = await q.query<{ present: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables
       WHERE schemaname = $1 AND tablename = 'schema_version') AS present`,
    [schema],
  );
  if (!row?.present) return 0;
  const [v] = await q.query<{ version: number }>('SELECT version FROM schema_version');
  return v?.version ?? 0;
}

/**
 * Brings the queue's schema to the latest version; throws SchemaTooNewError for a newer one, and
 * NotFoundError for none when `create` is false.
 */
export async function migratePg(db: PgDb, { create = true } = {}): Promise<{ from: number; to: number }> {
  const schema = db.schema;
  // Fast path: an existing, current schema needs no lock.
  const seen = await db.tx((q) => versionOf(q, schema));
  if (seen === 0 && !create) throw new NotFoundError(`no queue at ${db.location} (check ?schema=)`);
  if (seen > LATEST_PG_SCHEMA_VERSION) throw new SchemaTooNewError(seen, LATEST_PG_SCHEMA_VERSION);
  if (seen === LATEST_PG_SCHEMA_VERSION) return { from: seen, to: seen };
  return db.tx(async (q) => {
    await q.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`semaforo.schema.${schema}`]);
    const from = await versionOf(q, schema);
    if (from > LATEST_PG_SCHEMA_VERSION) throw new SchemaTooNewError(from, LATEST_PG_SCHEMA_VERSION);
    if (from === 0) {
      // schema names are validated as bare identifiers (location.ts)
      await q.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await q.query(`SET LOCAL search_path TO ${schema}`);
    }
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      await q.query(m.sql);
      await q.query(
        `INSERT INTO schema_version (one, version) VALUES (true, $1)
         ON CONFLICT (one) DO UPDATE SET version = excluded.version`,
        [m.version],
      );
    }
    return { from, to: LATEST_PG_SCHEMA_VERSION };
  });
}
