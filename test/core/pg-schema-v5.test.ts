/**
 * Schema 5 of a PostgreSQL queue (running tasks out of tasks_status, history pages with room to
 * close attempts in place): a schema 4 queue is moved in place when a process opens it, an
 * attempt that was running across the move is closed as before, and the list still finds every
 * status. Real PostgreSQL (test/conformance/pg-backend.ts says where, or skips).
 */
import { describe, expect, it } from 'vitest';
import { LATEST_PG_SCHEMA_VERSION } from '../../electron/core/store/postgres/migrations.ts';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import { pgAvailable, pgLocation } from '../conformance/pg-backend.ts';
import { A, claim, done, finish, LEASE_MS, tasks } from '../conformance/shapes.ts';
import { pgScratch } from './pg-old-queue.ts';

const { admin, keep, oldQueue } = pgScratch('pgv5');

describe.skipIf(!pgAvailable)('PostgreSQL schema 5', () => {
  it('moves a schema 4 queue in place, and closes an attempt that ran across the move', async () => {
    const {
      schema,
      filled: { taskId, historyId },
    } = await oldQueue(4, async (c) => {
      const [t] = (
        await c.query<{ id: string }>(
          `INSERT INTO tasks (kind, name, group_name, priority, payload, status, attempts, max_attempts,
             run_at, created_at, started_at, lease_owner, lease_expires_at, owner_pid, owner_host)
           VALUES ('sleep', 'across', 'default', 5, '{"ms":0}', 'running', 1, 3, 0, 0, 10, $1, $2, $3, $4)
           RETURNING id`,
          [A.id, 10 + LEASE_MS, A.pid, A.host],
        )
      ).rows;
      const [h] = (
        await c.query<{ id: string }>(
          `INSERT INTO history (task_id, type, attempt, started_at, outcome, worker)
           VALUES ($1, 'attempt', 1, 10, 'running', $2) RETURNING id`,
          [t!.id, A.id],
        )
      ).rows;
      return { taskId: Number(t!.id), historyId: Number(h!.id) };
    });

    const store = keep(await openPgStore(pgLocation(schema)));
    const [meta] = await admin(
      async (c) =>
        (
          await c.query<{ version: number; options: string[] | null; status_index: string }>(
            `SELECT (SELECT version::int FROM ${schema}.schema_version) AS version,
               (SELECT reloptions FROM pg_class WHERE oid = '${schema}.history'::regclass) AS options,
               (SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'tasks_status') AS status_index`,
            [schema],
          )
        ).rows,
    );
    // moved on to the latest version; schema 6 narrows tasks_status again (pg-schema-v6.test.ts)
    expect(meta).toMatchObject({ version: LATEST_PG_SCHEMA_VERSION, options: ['fillfactor=50'] });
    expect(meta!.status_index).not.toMatch(/\(status, id\)$/);

    const across = { taskId, attempt: 1, historyId, status: 'done' as const, result: null, output: 'kept' };
    expect(await finish(store, A, 20, across)).toHaveLength(1);
    const shown = await store.getTask(taskId);
    expect(shown!.status).toBe('done');
    expect(shown!.history).toMatchObject([{ id: historyId, outcome: 'done', endedAt: 20, output: 'kept' }]);

    // and new attempts open and close on the moved schema
    await store.enqueue(tasks(3), 30);
    const claimed = await claim(store, A, 3, 40);
    expect(claimed).toHaveLength(3);
    expect(await finish(store, A, 50, ...claimed.map((c) => done(c)))).toHaveLength(3);
    const stats = await store.stats(60, 0);
    expect(stats.counts).toMatchObject({ done: 4, running: 0, pending: 0 });
    // the list still finds every status, running ones included (tasks_running holds them)
    await store.enqueue(tasks(2, {}, 'r'), 60);
    const [running] = await claim(store, A, 1, 70);
    const listed = await store.listTasks({ status: ['running', 'pending'] });
    expect(listed.tasks.map((t) => t.status).sort()).toEqual(['pending', 'running']);
    expect(listed.tasks.find((t) => t.status === 'running')!.id).toBe(running!.task.id);
  });
});
