/**
 * PostgreSQL's schedules beyond the conformance suite: a host whose firing holds a schedule (a
 * slow transaction, a stalled connection) neither stalls another host's scheduler nor lets it
 * fire that schedule's due time a second time once it lets go; one firing of several schedules
 * keeps each one's own account, and parks a damaged one. Real PostgreSQL
 * (test/conformance/pg-backend.ts says where, or skips).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../electron/core/store/open-store.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import { dropSchema, freshSchemaName, pgAvailable, pgLocation } from '../conformance/pg-backend.ts';
import { everyMinute, fireAt as fire, MIN, T0 } from '../conformance/schedule-shapes.ts';

const stores: TaskStore[] = [];
const clients: pg.Client[] = [];
const schemas: string[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.end();
  for (const s of stores.splice(0)) await s.close();
  for (const name of schemas.splice(0)) await dropSchema(name);
});

describe.skipIf(!pgAvailable)('PostgreSQL schedules', () => {
  it("skip a schedule another host's firing holds, and never fire its due time twice", async () => {
    const schema = freshSchemaName('pgsched');
    schemas.push(schema);
    const store = await openStore(pgLocation(schema));
    stores.push(store);
    for (const name of ['held', 'free'])
      await store.schedules.create(everyMinute(name, { missed: 'all' }), T0);
    // Another host, mid-firing: it holds `held`.
    const other = new pg.Client({ connectionString: pgLocation(schema).replace(/\?.*$/, '') });
    clients.push(other);
    await other.connect();
    await other.query(`SET search_path TO ${schema}`);
    await other.query('BEGIN');
    const [{ id }] = (await other.query("SELECT id FROM schedules WHERE name = 'held' FOR UPDATE")).rows;

    // This host fires what it can at once instead of queueing behind the lock.
    const first = await fire(store, T0 + 3 * MIN);
    expect(first.schedules).toBe(1);
    expect((await store.listTasks({})).tasks.map((t) => t.name)).toEqual(['free', 'free', 'free']);

    // It enqueues the first due time, advances the schedule and commits: this host fires the rest.
    await other.query(
      `INSERT INTO tasks (kind, name, group_name, priority, payload, status, max_attempts, run_at, created_at,
         schedule_id, scheduled_for) VALUES ('sleep', 'held', 'default', 5, '{}', 'pending', 1, $1, $1, $2, $1)`,
      [T0 + MIN, id],
    );
    await other.query('UPDATE schedules SET next_due_at = $1 WHERE id = $2', [T0 + 2 * MIN, id]);
    await other.query('COMMIT');
    expect((await fire(store, T0 + 3 * MIN)).taskIds).toHaveLength(2);
    expect((await fire(store, T0 + 3 * MIN)).taskIds).toEqual([]);
    // Set back to the first due time, it does not get a second task either.
    await store.schedules.setEnabled('held', true, T0 + MIN, T0 + 3 * MIN);
    expect((await fire(store, T0 + 3 * MIN)).taskIds).toEqual([]);
    const held = (await store.listTasks({ sort: 'runAt', order: 'asc', limit: 10 })).tasks.filter(
      (t) => t.name === 'held',
    );
    expect(held.map((t) => (t.runAt - T0) / MIN)).toEqual([1, 2, 3]);
  });

  it('fire several in one firing, each with its own account, and park a damaged one', async () => {
    const schema = freshSchemaName('pgsched');
    schemas.push(schema);
    const store = await openStore(pgLocation(schema));
    stores.push(store);
    // made in reverse name order: they fire in id order
    await store.schedules.create(
      everyMinute('c-all', { task: { ...everyMinute('').task, group: 'c' }, missed: 'all' }),
      T0,
    );
    await store.schedules.create(
      everyMinute('b-damaged', { task: { ...everyMinute('').task, group: 'b' }, missed: 'all' }),
      T0,
    );
    await store.schedules.create(
      everyMinute('a-skip', { task: { ...everyMinute('').task, group: 'a' }, missed: 'skip' }),
      T0,
    );
    const admin = new pg.Client({ connectionString: pgLocation(schema).replace(/\?.*$/, '') });
    clients.push(admin);
    await admin.connect();
    await admin.query(`UPDATE ${schema}.schedules SET template = 'not json' WHERE name = 'b-damaged'`);

    // three due times each: `all` fires them all, `skip` only the latest, on time
    const out = await fire(store, T0 + 3 * MIN);
    expect(out.schedules).toBe(3);
    const fired = (await store.listTasks({ limit: 10 })).tasks.toSorted((x, y) => x.id - y.id);
    expect(out.taskIds).toEqual(fired.map((t) => t.id));
    expect(fired.map((t) => [t.name, (t.runAt - T0) / MIN])).toEqual([
      ['c-all', 1],
      ['c-all', 2],
      ['c-all', 3],
      ['a-skip', 3],
    ]);
    const a = await store.schedules.get('a-skip');
    const c = await store.schedules.get('c-all');
    const b = await store.schedules.get('b-damaged');
    expect(a).toMatchObject({
      name: 'a-skip',
      nextDueAt: T0 + 4 * MIN,
      lastDueAt: T0 + 3 * MIN,
      lastEnqueuedAt: T0 + 3 * MIN,
      lastTaskId: fired[3]!.id,
      skippedMissed: 2,
    });
    expect(b).toMatchObject({
      enabled: false,
      nextDueAt: null,
      lastTaskId: null,
      problem: 'the stored task template is damaged: not JSON',
    });
    expect(c).toMatchObject({
      name: 'c-all',
      nextDueAt: T0 + 4 * MIN,
      lastDueAt: T0 + 3 * MIN,
      lastTaskId: fired[2]!.id,
      skippedMissed: 0,
    });
    // and nothing fires twice
    expect((await fire(store, T0 + 3 * MIN)).taskIds).toEqual([]);
  });
});
