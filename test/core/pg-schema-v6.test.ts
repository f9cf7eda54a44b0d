/**
 * Schema 6 of a PostgreSQL queue (ended tasks out of tasks_status): a schema 5 queue is moved in
 * place when a process opens it, an attempt that was running across the move ends as before, and
 * the list still finds every status. Real PostgreSQL (test/conformance/pg-backend.ts says where,
 * or skips).
 */
import { describe, expect, it } from 'vitest';
import { LATEST_PG_SCHEMA_VERSION } from '../../electron/core/store/postgres/migrations.ts';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import { pgAvailable, pgLocation } from '../conformance/pg-backend.ts';
import { A, claim, done, finish, LEASE_MS, tasks } from '../conformance/shapes.ts';
import { pgScratch } from './pg-old-queue.ts';

const { admin, keep, oldQueue } = pgScratch('pgv6');

const INSERT = `INSERT INTO tasks (kind, name, group_name, priority, payload, status, attempts, max_attempts,
    run_at, created_at, started_at, finished_at, lease_owner, lease_expires_at, owner_pid, owner_host)
  VALUES ('sleep', $1, 'default', 5, '{"ms":0}', $2, $3, 3, 0, 0, $4, $5, $6, $7, $8, $9) RETURNING id`;

describe.skipIf(!pgAvailable)('PostgreSQL schema 6', () => {
  it('moves a schema 5 queue in place; every status is still listed, a running attempt still ends', async () => {
    const { schema, filled: ids } = await oldQueue(5, async (c) => {
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

    const store = keep(await openPgStore(pgLocation(schema)));
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
    expect(meta!.version).toBe(LATEST_PG_SCHEMA_VERSION);
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
