/**
 * Schema 6 of a PostgreSQL queue (ended tasks out of tasks_status): a schema 5 queue is moved in
 * place when a process opens it, an attempt that was running across the move ends as before, and
 * the list still finds every status. Real PostgreSQL (test/conformance/pg-backend.ts says where,
 * or skips).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import { SCHEMA_V1 } from '../../electron/core/store/postgres/schema.ts';
import { SCHEMA_V2 } from '../../electron/core/store/postgres/schema-v2.ts';
import { SCHEMA_V3 } from '../../electron/core/store/postgres/schema-v3.ts';
import { SCHEMA_V4 } from '../../electron/core/store/postgres/schema-v4.ts';
import { SCHEMA_V5 } from '../../electron/core/store/postgres/schema-v5.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgLocation,
  PG_TEST_URL,
} from '../conformance/pg-backend.ts';
import { A, claim, done, finish, LEASE_MS, tasks } from '../conformance/shapes.ts';

const stores: TaskStore[] = [];
const schemas: string[] = [];

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const name of schemas.splice(0)) await dropSchema(name);
});

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_TEST_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const INSERT = `INSERT INTO tasks (kind, name, group_name, priority, payload, status, attempts, max_attempts,
    run_at, created_at, started_at, finished_at, lease_owner, lease_expires_at, owner_pid, owner_host)
  VALUES ('sleep', $1, 'default', 5, '{"ms":0}', $2, $3, 3, 0, 0, $4, $5, $6, $7, $8, $9) RETURNING id`;

describe.skipIf(!pgAvailable)('PostgreSQL schema 6', () => {
  it('moves a schema 5 queue in place; every status is still listed, a running attempt still ends', async () => {
    const schema = freshSchemaName('pgv6');
    schemas.push(schema);
    const ids = await admin(async (c) => {
      await c.query(`CREATE SCHEMA ${schema}`);
      await c.query(`SET search_path TO ${schema}`);
      await c.query(SCHEMA_V1 + SCHEMA_V2 + SCHEMA_V3 + SCHEMA_V4 + SCHEMA_V5);
      await c.query('INSERT INTO schema_version (one, version) VALUES (true, 5)');
      const add = async (name: string, status: string, running = false) => {
        const ended = ['done', 'failed', 'cancelled'].includes(status);
        const lease = running ? [A.id, 10 + LEASE_MS, A.pid, A.host] : [null, null, null, null];
        const { rows } = await c.query<{ id: string }>(INSERT, [
          name,
          status,
          running || ended ? 1 : 0,
          running || ended ? 10 : null,
          ended ? 12 : null,
          ...lease,
        ]);
        return Number(rows[0]!.id);
      };
      const out: Record<string, number> = {};
      for (const s of ['pending', 'retrying', 'done', 'failed', 'cancelled']) out[s] = await add(s, s);
      out.running = await add('running', 'running', true);
      const { rows } = await c.query<{ id: string }>(
        `INSERT INTO history (task_id, type, attempt, started_at, outcome, worker)
         VALUES ($1, 'attempt', 1, 10, 'running', $2) RETURNING id`,
        [out.running, A.id],
      );
      out.history = Number(rows[0]!.id);
      return out;
    });

    const store = await openPgStore(pgLocation(schema));
    stores.push(store);
    const [meta] = await admin(
      async (c) =>
        (
          await c.query<{ version: number; status_index: string }>(
            `SELECT (SELECT version::int FROM ${schema}.schema_version) AS version,
               (SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'tasks_status') AS status_index`,
            [schema],
          )
        ).rows,
    );
    expect(meta!.version).toBe(6);
    expect(meta!.status_index).toMatch(
      /WHERE \(status = ANY \(ARRAY\['pending'::text, 'retrying'::text\]\)\)$/,
    );

    // every status, alone and together, as before the move
    for (const s of ['pending', 'retrying', 'running', 'done', 'failed', 'cancelled'] as const) {
      const listed = await store.listTasks({ status: [s] });
      expect(listed.tasks.map((t) => t.id)).toEqual([ids[s]]);
    }
    const ended = await store.listTasks({ status: ['done', 'failed', 'cancelled'] });
    expect(ended.tasks.map((t) => t.id).sort((a, b) => a - b)).toEqual([ids.done, ids.failed, ids.cancelled]);

    const across = { taskId: ids.running!, attempt: 1, historyId: ids.history!, status: 'done' as const };
    expect(await finish(store, A, 20, { ...across, result: null, output: 'kept' })).toHaveLength(1);
    expect(
      (await store.listTasks({ status: ['done'] })).tasks.map((t) => t.id).sort((a, b) => a - b),
    ).toEqual([ids.done, ids.running]);

    // and new attempts open and end on the moved schema
    await store.enqueue(tasks(3), 30);
    const claimed = await claim(store, A, 3, 40);
    expect(claimed).toHaveLength(3);
    expect(await finish(store, A, 50, ...claimed.map((c) => done(c)))).toHaveLength(3);
    expect((await store.stats(60, 0)).counts).toMatchObject({ done: 5, running: 0 });
    expect((await store.listTasks({ status: ['done'] })).tasks).toHaveLength(5);
  });
});
