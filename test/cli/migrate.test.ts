/**
 * `semaforo migrate`: a real queue file copied into a real PostgreSQL schema by the spawned CLI.
 * What a user relies on: every task reads the same afterwards (history included), limits,
 * settings and schedules came along, a due time fired before the move does not fire again, new
 * tasks never reuse an id, and a queue already there is not overwritten unless asked.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../electron/core/store/open-store.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import { dropSchema, freshSchemaName, pgAvailable, pgLocation } from '../conformance/pg-backend.ts';
import { everyMinute, fireAt, T0 } from '../conformance/schedule-shapes.ts';
import { A, claim, done, ended, finish, task } from '../conformance/shapes.ts';
import { tempDir } from '../helpers.ts';
import { cli, json } from './cli-helpers.ts';

const SCHEMA = freshSchemaName('migrate');
const TARGET = pgLocation(SCHEMA);

/** A queue file with a task in every status, a purged one, group limits, settings and a fired schedule. */
async function sourceQueue(file: string): Promise<{ store: TaskStore; firedDue: number }> {
  const store = await openStore(file);
  await store.updateSettings({
    globalConcurrency: 7,
    retentionDays: 9,
    notifications: { groups: ['vendor'] },
  });
  await store.updateGroup('vendor', { concurrency: 2, rate: { limit: 5, periodMs: 60_000 }, paused: true });
  // The queue-wide gate's scope is '': the first page of a text key must not skip it.
  await store.setGate(null, { maxLoad: 3 });
  await store.setGate('vendor', { onAc: true, pauseRunning: true });
  await store.enqueue(
    ['done first', 'done', 'failed', 'retrying', 'running', 'cancelled'].map((name, i) =>
      task({
        name,
        priority: i,
        payload: JSON.stringify({ name, n: i }),
        unique: name === 'running' ? 'u1' : null,
      }),
    ),
    T0,
  );
  const [first, ok, bad, again, running] = await claim(store, A, 5, T0 + 10);
  await finish(
    store,
    A,
    T0 + 20,
    done(first!),
    done(ok!, '{"ok":true}', 'all fine'),
    // a NUL, which SQLite keeps and PostgreSQL text cannot
    ended(bad!, 'failed', 'failed', { error: 'boom', output: 'binary\0out' }),
    ended(again!, 'retrying', 'retry', { runAt: T0 + 60_000 }),
  );
  await store.cancel([6], T0 + 25);
  await store.setPriority(running!.task.id, 1, T0 + 26);
  // The newest id is purged: a copy must still never hand it out again.
  await store.enqueue([task({ name: 'purged' })], T0 + 30);
  const [p] = await claim(store, A, 1, T0 + 31);
  await finish(store, A, T0 + 32, done(p!));
  await store.remove([p!.task.id]);
  await store.schedules.create(
    everyMinute('minutely', { alarms: { graceMs: 600_000, maxRuntimeMs: 3_600_000, minRuntimeMs: 5000 } }),
    T0,
  );
  await fireAt(store, T0 + 60_000);
  // Left waiting in the file's inbox (no write after it moved it into tasks): copied all the same.
  await store.enqueue([task({ name: 'just enqueued' })], T0 + 70_000);
  return { store, firedDue: T0 + 60_000 };
}

describe.skipIf(!pgAvailable)('semaforo migrate', { timeout: 120_000 }, () => {
  let pg: TaskStore;
  afterAll(async () => {
    await pg?.close();
    await dropSchema(SCHEMA);
  });

  it('copies a queue whole, verified, and refuses to overwrite one unless told', async () => {
    const file = path.join(tempDir(), 'queue.db');
    const { store, firedDue } = await sourceQueue(file);
    const before = await store.listTasks({ order: 'asc' });
    const tasksBefore = await Promise.all(before.tasks.map((t) => store.getTask(t.id)));
    const statsBefore = await store.stats(T0 + 100, 10);
    const schedulesBefore = await store.schedules.list();
    await store.close();

    const out = await cli(['--json', 'migrate', '--from', file, '--to', TARGET]);
    const report = json<{ copied: Record<string, number>; taskStatuses: Record<string, number> }>(out);
    // 6 tasks, the schedule's and the one in the inbox; 5 attempts, a cancel and a priority change
    expect(report.copied).toMatchObject({ tasks: 8, history: 7, groups: 2, schedules: 1, settings: 1 });
    expect(report.taskStatuses).toEqual({
      pending: 2,
      running: 1,
      retrying: 1,
      done: 2,
      failed: 1,
      cancelled: 1,
    });
    expect(out.stderr).toContain('1 task(s) were running');

    // Every task reads the same on PostgreSQL, history and all; so do the overview and the schedules.
    pg = await openStore(TARGET);
    const storable = (text: string | null) => text?.replaceAll('\0', '\uFFFD') ?? null;
    for (const t of tasksBefore) {
      const history = t!.history.map((h) => ({ ...h, output: storable(h.output) }));
      expect(await pg.getTask(t!.id)).toEqual({ ...t, history });
    }
    expect(tasksBefore.flatMap((t) => t!.history).some((h) => h.output === 'binary\0out')).toBe(true);
    expect(await pg.stats(T0 + 100, 10)).toEqual(statsBefore);
    expect(await pg.schedules.list()).toEqual(schedulesBefore);
    expect((await pg.listGates()).map((g) => [g.group, g.maxLoad, g.onAc])).toEqual([
      [null, 3, false],
      ['vendor', null, true],
    ]);
    // New tasks take ids above every id the file ever handed out, the purged one included.
    const [next] = await pg.enqueue([task({ name: 'new' })], T0 + 200);
    expect(next!.task.id).toBe(10);
    // The due time fired before the move stays fired, even when set back to it.
    await pg.schedules.setEnabled('minutely', true, firedDue, T0 + 200);
    expect((await fireAt(pg, firedDue)).taskIds).toEqual([]);

    const again = await cli(['migrate', '--from', file, '--to', TARGET]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds a queue \(9 tasks.*--replace/);
    const replaced = await cli(['migrate', '--from', file, '--to', TARGET, '--replace']);
    expect(replaced.code).toBe(0);
    expect(replaced.stdout).toContain('(replacing the queue it held); counts verified');
    expect(replaced.stdout).toMatch(/tasks +8 \(/);
    expect((await pg.listTasks({})).total).toBe(8);
  });

  it('copies a big queue with fractional times, its progress on stderr', async () => {
    const file = path.join(tempDir(), 'big.db');
    const store = await openStore(file);
    await store.enqueue(
      // fractional times, as a Retry-After of 1.5 s leaves them in SQLite
      Array.from({ length: 12_000 }, (_, i) => task({ name: `t${i}`, runAt: T0 + i + 0.5 })),
      T0 + 0.25,
    );
    await store.close();
    const schema = freshSchemaName('migratebig');
    try {
      const r = await cli(['migrate', '--from', file, '--to', pgLocation(schema)]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.split('\n').filter((l) => l.startsWith('migrate: '))).toEqual([
        'migrate: tasks 10000/12000',
        'migrate: tasks 12000/12000',
      ]);
      expect(r.stdout).toMatch(/tasks +12000 \(pending 12000\)/);
      const pg = await openStore(pgLocation(schema));
      const [first] = (await pg.listTasks({ order: 'asc', limit: 1 })).tasks;
      await pg.close();
      // a time to wait until, rounded up to the whole ms the column holds
      expect(first!.runAt).toBe(T0 + 1);
    } finally {
      await dropSchema(schema);
    }
  });

  it('names the table, row and column of a source row PostgreSQL cannot hold, and writes nothing', async () => {
    const file = path.join(tempDir(), 'damaged.db');
    const store = await openStore(file);
    await store.enqueue([task({ name: 'fine' }), task({ name: 'hand-edited' })], T0);
    await store.updateGroup('disk', { concurrency: 2 });
    await store.close();
    const schema = freshSchemaName('migratebad');
    const damage = async (sql: string) => {
      const db = new Database(file);
      db.exec(sql);
      db.close();
    };
    try {
      await damage("UPDATE tasks SET run_at = 'soon' WHERE id = 2");
      const r = await cli(['migrate', '--from', file, '--to', pgLocation(schema)]);
      expect([r.code, r.stderr.trim()]).toEqual([
        1,
        `semaforo: cannot copy tasks row 2: run_at is "soon", expected an integer; fix or delete that row in ${file}, nothing was copied`,
      ]);
      await damage(
        "UPDATE tasks SET run_at = 0 WHERE id = 2; UPDATE groups SET concurrency = 'two' WHERE name = 'disk'",
      );
      const g = await cli(['migrate', '--from', file, '--to', pgLocation(schema)]);
      expect(g.stderr).toContain(
        'cannot copy groups row "disk": concurrency is "two", expected an integer or null',
      );
      const pg = await openStore(pgLocation(schema));
      expect((await pg.listTasks({})).total).toBe(0);
      await pg.close();
    } finally {
      await dropSchema(schema);
    }
  });

  it('has help, and says what is wrong with a missing file or a non-PostgreSQL target', async () => {
    const help = await cli(['migrate', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--from <file>[\s\S]*--to <url>[\s\S]*--replace[\s\S]*one transaction/);
    const missing = path.join(tempDir(), 'nope.db');
    const r1 = await cli(['migrate', '--from', missing, '--to', TARGET]);
    expect([r1.code, r1.stderr.trim()]).toEqual([1, `semaforo: no queue file at ${missing}`]);
    const r2 = await cli(['migrate', '--from', missing, '--to', '/tmp/other.db']);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('--to: give a postgres:// URL');
    const r3 = await cli(['migrate', '--from', missing]);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain('--to: give the PostgreSQL queue');
  });
});
