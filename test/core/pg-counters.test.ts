/**
 * The per-group counters on PostgreSQL (kept by statement triggers): right after ticks that end
 * thousands of tasks at once, a schema 1 queue moved to schema 2 in place with its counts, and
 * a task still unable to change group. Real PostgreSQL (test/conformance/pg-backend.ts).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import { SCHEMA_V1 } from '../../electron/core/store/postgres/schema.ts';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgLocation,
  PG_TEST_URL,
} from '../conformance/pg-backend.ts';
import { A, claim, done, tasks } from '../conformance/shapes.ts';

const schemas: string[] = [];
afterEach(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s);
});

async function admin<T>(schema: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_TEST_URL });
  await c.connect();
  try {
    await c.query(`SET search_path TO ${schema}`);
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The counters next to a count of the rows, both as "group/status=n" lines. */
async function countsAndRows(schema: string) {
  return admin(schema, async (c) => {
    const line = (r: { g: string; st: string; n: number }) => `${r.g}/${r.st}=${r.n}`;
    const counted = await c.query(
      'SELECT group_name AS g, status AS st, n::int AS n FROM counts WHERE n <> 0 ORDER BY 1, 2',
    );
    const rows = await c.query(
      'SELECT group_name AS g, status AS st, count(*)::int AS n FROM tasks GROUP BY 1, 2 ORDER BY 1, 2',
    );
    return { counted: counted.rows.map(line), rows: rows.rows.map(line) };
  });
}

describe.skipIf(!pgAvailable)('the PostgreSQL counters', () => {
  it('stay equal to the rows when one tick ends thousands of tasks in two groups', async () => {
    const schema = freshSchemaName('counts');
    schemas.push(schema);
    const store = await openPgStore(pgLocation(schema));
    await store.updateSettings({ globalConcurrency: 10_000 });
    await store.enqueue([...tasks(1500, { group: 'a' }), ...tasks(1500, { group: 'b' }, 'u')], 0);
    const claimed = await claim(store, A, 3000, 10);
    expect(claimed).toHaveLength(3000);
    // 2,000 done and the rest back to the queue, in one tick.
    await store.tick({
      now: () => 20,
      worker: A,
      leaseMs: 30_000,
      finishes: claimed.slice(0, 2000).map((c) => done(c)),
      claimMax: 0,
    });
    await store.releaseLeases(
      A,
      claimed.slice(2000).map((c) => c.task.id),
      30,
    );
    const { counted, rows } = await countsAndRows(schema);
    expect(counted).toEqual(rows);
    expect(counted).toContain('a/done=1500');
    await store.close();
  });

  it('moves a schema 1 queue to schema 2 in place, its counts kept, and still refuses a change of group', async () => {
    const schema = freshSchemaName('v1');
    schemas.push(schema);
    // A queue as schema 1 left it, with tasks in it.
    await admin('public', async (c) => {
      await c.query(`CREATE SCHEMA ${schema}`);
      await c.query(`SET search_path TO ${schema}`);
      await c.query(SCHEMA_V1);
      await c.query('INSERT INTO schema_version (one, version) VALUES (true, 1)');
    });
    const before = await openPgStore(pgLocation(schema));
    await before.updateSettings({ globalConcurrency: 100 });
    expect(
      await admin(
        schema,
        async (c) => (await c.query('SELECT version::int AS v FROM schema_version')).rows[0].v,
      ),
    ).toBeGreaterThanOrEqual(2);
    await before.enqueue(tasks(40, { group: 'g' }), 0);
    const claimed = await claim(before, A, 40, 10);
    await before.tick({
      now: () => 20,
      worker: A,
      leaseMs: 30_000,
      finishes: claimed.map((c) => done(c)),
      claimMax: 0,
    });
    const { counted, rows } = await countsAndRows(schema);
    expect(counted).toEqual(['g/done=40']);
    expect(counted).toEqual(rows);
    await expect(
      admin(schema, (c) => c.query("UPDATE tasks SET group_name = 'other' WHERE id = 1")),
    ).rejects.toThrow(/a task cannot change group/);
    // Setting it to the same value is no change.
    await admin(schema, (c) => c.query('UPDATE tasks SET group_name = group_name WHERE id = 1'));
    await before.close();
  });
});
