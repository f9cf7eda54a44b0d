/**
 * Rows locked by a list of ids (each-by-id.ts) on a queue filled since autovacuum last analyzed
 * it: the claim's and the ends' locks look each id up through the primary key, never a scan of
 * the table or of every waiting task's index entry. And what the list picks: each existing id
 * once, in id order, only where the condition holds. Real PostgreSQL (pg-backend.ts).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { eachById } from '../../electron/core/store/postgres/each-by-id.ts';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgLocation,
  PG_TEST_URL,
} from '../conformance/pg-backend.ts';
import { tasks } from '../conformance/shapes.ts';

const schemas: string[] = [];
afterEach(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s);
});

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };
const nodesOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodesOf)];

/** A queue of `n` waiting tasks, never analyzed, and a client in its schema. */
async function filledQueue(n: number): Promise<pg.Client> {
  const schema = freshSchemaName('byid');
  schemas.push(schema);
  const store = await openPgStore(pgLocation(schema));
  // As a queue filled within autovacuum's nap: no statistics on what was just written.
  await store.close();
  await admin(schema, (c) => c.query('ALTER TABLE tasks SET (autovacuum_enabled = false)'));
  const reopened = await openPgStore(pgLocation(schema));
  for (let i = 0; i < n; i += 1000) await reopened.enqueue(tasks(Math.min(1000, n - i)), 0);
  await reopened.close();
  const c = new pg.Client({ connectionString: PG_TEST_URL });
  await c.connect();
  await c.query(`SET search_path TO ${schema}`);
  return c;
}

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

describe.skipIf(!pgAvailable)('rows locked by a list of ids on PostgreSQL', () => {
  it('are found through the primary key on a large table with no statistics', async () => {
    const c = await filledQueue(20_000);
    try {
      const ids = Array.from({ length: 512 }, (_, i) => 5001 + i);
      const plain = async (sql: string) => {
        await c.query('BEGIN');
        try {
          const r = await c.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${sql}`, [
            ids,
          ]);
          return nodesOf(r.rows[0]!['QUERY PLAN'][0].Plan);
        } finally {
          await c.query('ROLLBACK');
        }
      };
      // The statements as they were, for contrast: the plan follows the missing statistics.
      const before = await plain(
        "SELECT id FROM tasks WHERE id = ANY($1::bigint[]) AND status IN ('pending', 'retrying') FOR UPDATE SKIP LOCKED",
      );
      expect(before.some((n) => n['Index Name'] === 'tasks_status' || n['Node Type'] === 'Seq Scan')).toBe(
        true,
      );
      for (const sql of [
        eachById('tasks', '$1::bigint[]', "status IN ('pending', 'retrying')", 'FOR UPDATE SKIP LOCKED'),
        eachById('tasks', '$1::bigint[]', 'true', 'FOR UPDATE'),
        `UPDATE tasks SET progress = 0.5 FROM (${eachById('tasks', '$1::bigint[]', 'true', 'FOR UPDATE')}) mine
           WHERE tasks.id = mine.id`,
      ]) {
        const scans = (await plain(sql)).filter(
          (n) => n['Relation Name'] === 'tasks' && n['Node Type'] !== 'ModifyTable',
        );
        expect(scans.length).toBeGreaterThan(0);
        for (const s of scans) expect(`${s['Node Type']} ${s['Index Name']}`).toBe('Index Scan tasks_pkey');
      }
    } finally {
      await c.end();
    }
  });

  it('pick each existing id once, in id order, where the condition holds', async () => {
    const c = await filledQueue(10);
    try {
      await c.query("UPDATE tasks SET status = 'cancelled', finished_at = 1 WHERE id = 4");
      const r = await c.query<{ id: string }>(
        eachById('tasks', '$1::bigint[]', "status = 'pending'", 'FOR UPDATE'),
        [[9, 4, 2, 99, 9, 7]],
      );
      expect(r.rows.map((x) => Number(x.id))).toEqual([2, 7, 9]);
    } finally {
      await c.end();
    }
  });
});
