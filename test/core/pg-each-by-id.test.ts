/**
 * Rows locked by a list of ids (each-by-id.ts) on a queue filled and claimed since autovacuum last
 * analyzed it: the claim's lock, the ends (successes apart, or of every kind), progress and live
 * output look each id up once through the primary key, never scan the table or every waiting
 * task's index entry, and never run a lock once per running task. And what the list picks: each existing id once, in id order, only
 * where the condition holds. Real PostgreSQL (pg-backend.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eachById } from '../../electron/core/store/postgres/each-by-id.ts';
import { SET_OUTPUT, SET_PROGRESS } from '../../electron/core/store/postgres/leases.ts';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import { TICK_ENDS, tickEndsParams } from '../../electron/core/store/postgres/tick-ends.ts';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgInSchema,
  pgLocation,
} from '../conformance/pg-backend.ts';
import { A, claim, done, ended, tasks } from '../conformance/shapes.ts';

const schemas: string[] = [];
afterEach(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s);
});

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Loops'?: number;
  'Rows Removed by Join Filter'?: number;
  Plans?: PlanNode[];
};
const nodesOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodesOf)];

/** A queue of `n` tasks, `running` of them claimed by A, never analyzed. */
async function queue(n: number, running: number) {
  const schema = freshSchemaName('byid');
  schemas.push(schema);
  const store = await openPgStore(pgLocation(schema));
  // As a queue filled within autovacuum's nap: no statistics on what was just written.
  await pgInSchema(schema, (c) =>
    c.query(
      'ALTER TABLE tasks SET (autovacuum_enabled = false); ALTER TABLE history SET (autovacuum_enabled = false)',
    ),
  );
  await store.updateSettings({ globalConcurrency: 10_000 });
  for (let i = 0; i < n; i += 1000) await store.enqueue(tasks(Math.min(1000, n - i)), 0);
  const claimed = await claim(store, A, running, 10);
  await store.close();
  return { schema, claimed };
}

/** The plan's nodes of `sql` as run with `params`, rolled back. */
async function planOf(schema: string, sql: string, params: unknown[]): Promise<PlanNode[]> {
  return pgInSchema(schema, async (c) => {
    await c.query('BEGIN');
    try {
      const r = await c.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
        params,
      );
      return nodesOf(r.rows[0]!['QUERY PLAN'][0].Plan);
    } finally {
      await c.query('ROLLBACK');
    }
  });
}

/**
 * Every scan of `tasks` goes through its primary key, no lock runs more often than `ids`, and no
 * join compares every row with every other (two lists the planner takes for one row each).
 */
function expectKeyed(nodes: PlanNode[], ids: number) {
  const scans = nodes.filter((n) => n['Relation Name'] === 'tasks' && n['Node Type'] !== 'ModifyTable');
  expect(scans.length).toBeGreaterThan(0);
  for (const s of scans) expect(`${s['Node Type']} ${s['Index Name']}`).toBe('Index Scan tasks_pkey');
  for (const l of nodes.filter((n) => n['Node Type'] === 'LockRows'))
    expect(l['Actual Loops']).toBeLessThanOrEqual(ids);
  for (const n of nodes) expect(n['Rows Removed by Join Filter'] ?? 0).toBeLessThanOrEqual(ids);
}

describe.skipIf(!pgAvailable)('rows locked by a list of ids on PostgreSQL', () => {
  it('are found through the primary key by the claim, the ends, progress and output, without statistics', async () => {
    const { schema, claimed } = await queue(20_000, 500);
    const waiting = Array.from({ length: 512 }, (_, i) => 5001 + i);
    expectKeyed(
      await planOf(
        schema,
        eachById('tasks', '$1::bigint[]', "status IN ('pending', 'retrying')", 'FOR UPDATE SKIP LOCKED'),
        [waiting],
      ),
      512,
    );
    // A tick ending 100 of the 500 running, as when the handlers end at different times.
    const ending = claimed.slice(0, 100);
    expectKeyed(
      await planOf(
        schema,
        TICK_ENDS,
        tickEndsParams(
          ending.map((c) => done(c)),
          A,
          20,
          0,
        ),
      ),
      100,
    );
    // The same as every kind of end, some of them blocking their group.
    const kinds = ending.map((c, i) =>
      i % 2 === 0 ? done(c) : ended(c, 'retrying', 'retry-after', { runAt: 30, blockGroupUntil: 40 }),
    );
    expectKeyed(await planOf(schema, TICK_ENDS, tickEndsParams(kinds, A, 20, 0)), 100);
    const ids = claimed.map((c) => c.task.id);
    expectKeyed(await planOf(schema, SET_PROGRESS, [ids, ids.map(() => 0.5), A.id]), 500);
    const output = await planOf(schema, SET_OUTPUT, [
      claimed.map((c) => c.historyId),
      ids.map(() => 'x'),
      A.id,
    ]);
    for (const l of output.filter((n) => n['Node Type'] === 'LockRows'))
      expect(l['Actual Loops']).toBeLessThanOrEqual(500);
  });

  it('pick each existing id once, in id order, where the condition holds', async () => {
    const { schema } = await queue(10, 0);
    const picked = await pgInSchema(schema, async (c) => {
      await c.query("UPDATE tasks SET status = 'cancelled', finished_at = 1 WHERE id = 4");
      return c.query<{ id: string }>(eachById('tasks', '$1::bigint[]', "status = 'pending'", 'FOR UPDATE'), [
        [9, 4, 2, 99, 9, 7],
      ]);
    });
    expect(picked.rows.map((x) => Number(x.id))).toEqual([2, 7, 9]);
  });
});
