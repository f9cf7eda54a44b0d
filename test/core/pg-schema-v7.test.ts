/**
 * Schema 7 of a PostgreSQL queue (the delete trigger takes the counts rows in order): a schema 6
 * queue is moved in place when a process opens it, and a purge and a delete on the moved queue
 * leave its counts equal to its rows. Real PostgreSQL (test/conformance/pg-backend.ts says where,
 * or skips).
 */
import { describe, expect, it } from 'vitest';
import { LATEST_PG_SCHEMA_VERSION } from '../../electron/core/store/postgres/migrations.ts';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import { pgAvailable, pgLocation } from '../conformance/pg-backend.ts';
import { pgScratch } from './pg-old-queue.ts';

const { admin, keep, oldQueue } = pgScratch('pgv7');

const INSERT = `INSERT INTO tasks (kind, name, group_name, priority, payload, status, attempts, max_attempts,
    run_at, created_at, started_at, finished_at)
  SELECT 'sleep', 'old', g, 5, '{"ms":0}', s, 0, 3, 0, 0, NULL, CASE WHEN s = 'pending' THEN NULL ELSE 12 END
  FROM unnest($1::text[]) AS g, unnest($2::text[]) AS s, generate_series(1, 2)`;

/** The counters and a count of the rows, both as "group/status=n" lines. */
async function countsAndRows(schema: string) {
  return admin(async (c) => {
    const line = (r: { g: string; st: string; n: number }) => `${r.g}/${r.st}=${r.n}`;
    const counted = await c.query<{ g: string; st: string; n: number }>(
      `SELECT group_name AS g, status AS st, n::int AS n FROM ${schema}.counts WHERE n <> 0 ORDER BY 1, 2`,
    );
    const rows = await c.query<{ g: string; st: string; n: number }>(
      `SELECT group_name AS g, status AS st, count(*)::int AS n FROM ${schema}.tasks GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    return { counted: counted.rows.map(line), rows: rows.rows.map(line) };
  });
}

describe.skipIf(!pgAvailable)('PostgreSQL schema 7', () => {
  it('moves a schema 6 queue in place; a purge and a delete keep its counts equal to its rows', async () => {
    // two tasks of each status in each of three groups, counted by the schema 6 triggers
    const { schema } = await oldQueue(6, (c) =>
      c.query(INSERT, [
        ['a', 'b', 'c'],
        ['pending', 'done', 'failed', 'cancelled'],
      ]),
    );
    const store = keep(await openPgStore(pgLocation(schema)));
    const [meta] = await admin(
      async (c) =>
        (
          await c.query<{ version: number; delete_trigger: string }>(
            `SELECT (SELECT version::int FROM ${schema}.schema_version) AS version,
               (SELECT prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                 WHERE n.nspname = $1 AND p.proname = 'tasks_counts_delete') AS delete_trigger`,
            [schema],
          )
        ).rows,
    );
    expect(meta!.version).toBe(LATEST_PG_SCHEMA_VERSION);
    expect(meta!.delete_trigger).toMatch(/ORDER BY group_name, status\s+ON CONFLICT/);

    expect(await store.purgeFinished(13)).toBe(18);
    const b = (await store.listTasks({ status: ['pending'], group: 'b' })).tasks.map((t) => t.id);
    expect(await store.remove(b)).toHaveLength(2);
    const { counted, rows } = await countsAndRows(schema);
    expect(counted).toEqual(['a/pending=2', 'c/pending=2']);
    expect(counted).toEqual(rows);
    expect((await store.stats(20, 0)).counts).toMatchObject({ pending: 4, done: 0, failed: 0, cancelled: 0 });
  });
});
