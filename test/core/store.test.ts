import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.ts';
import { listQuerySchema, parseInput } from '../../shared/schemas.ts';
import { parseTaskSpecNow } from '../../shared/task-spec-now.ts';
import { SCHEMA_V1, SCHEMA_V2, SCHEMA_V3 } from '../../electron/core/store/sqlite/schema.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import { newTaskRow, tempDir, testEngine, waitFor } from '../helpers.ts';

async function errorOf(fn: () => unknown): Promise<ValidationError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('enqueue validation', () => {
  it.each([
    [{ kind: 'sleep', payload: { ms: 'soon' } }, /^payload\.ms: /],
    [{ kind: 'sleep', priority: -1, payload: { ms: 0 } }, /^priority: must be an integer from 0 to 9/],
    [
      { kind: 'nope', payload: {} },
      /^kind: unknown kind "nope"; known kinds: http, shell, sleep, sqlite-backup/,
    ],
    [
      { kind: 'sleep', payload: { ms: 0, blob: 'x'.repeat(300_000) } },
      /^payload: is \d+ bytes as JSON; the limit is 262144/,
    ],
    [{ kind: 'sleep', payload: { ms: Number.NaN } }, /payload/],
    [{ kind: 'sleep', priorty: 1, payload: { ms: 0 } }, /priorty/],
    [
      { kind: 'sleep', delayMs: 5, runAt: 5, payload: { ms: 0 } },
      /^delay: give either runAt or delay, not both/,
    ],
    [{ kind: 'sleep', maxAttempts: 0, payload: { ms: 0 } }, /^maxAttempts: /],
  ])('refuses %j with a message naming the field', async (spec, message) => {
    const engine = await testEngine();
    expect((await errorOf(() => engine.enqueue(parseTaskSpecNow(spec)))).message).toMatch(message);
    expect((await engine.listTasks()).total).toBe(0);
  });

  it('writes nothing of a batch with one bad task, and names its index', async () => {
    const engine = await testEngine();
    const err = await errorOf(() =>
      engine.enqueueMany([
        { kind: 'sleep', payload: { ms: 1 } },
        { kind: 'sleep', payload: { ms: -5 } },
      ]),
    );
    expect(err.issues[0]!.path).toBe('tasks[1].payload.ms');
    expect((await engine.listTasks()).total).toBe(0);
  });

  it('refuses a payload nested deeper than the limit without overflowing the stack', async () => {
    let deep: unknown = { ms: 0 };
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    expect((await errorOf(() => parseTaskSpecNow({ kind: 'sleep', payload: deep }))).message).toMatch(
      /nested deeper than 32/,
    );
  });
});

describe('store', () => {
  it('returns the unfinished task holding a unique key instead of a duplicate, and frees the key when it ends', async () => {
    const engine = await testEngine();
    const first = await engine.enqueue({ kind: 'sleep', unique: 'nightly-backup', payload: { ms: 0 } });
    const again = await engine.enqueue({ kind: 'sleep', unique: 'nightly-backup', payload: { ms: 0 } });
    expect(first.created).toBe(true);
    expect(again).toEqual({ task: first.task, created: false });
    engine.start();
    await waitFor(async () => (await engine.getTask(first.task.id)).status === 'done', 'done');
    expect(
      (await engine.enqueue({ kind: 'sleep', unique: 'nightly-backup', payload: { ms: 0 } })).created,
    ).toBe(true);
    await engine.stop();
  });

  it('returns from a batch enqueue exactly the tasks it stored, in order, whatever the batch size', async () => {
    const engine = await testEngine();
    // 1 + 5 + 85 + 150 + 64 exercise every statement size of the multi-row insert and their mixes.
    for (const size of [1, 5, 85, 150, 64]) {
      const specs = Array.from({ length: size }, (_, i) => ({
        kind: 'sleep',
        name: `t${size}-${i}`,
        group: ['a', 'b', 'c'][i % 3],
        priority: i % 10,
        delayMs: i % 2 ? 60_000 : undefined,
        timeoutMs: i % 3 ? 5000 : undefined,
        payload: { ms: i },
      }));
      const out = await engine.enqueueMany(specs);
      expect(out.map((r) => r.task.name)).toEqual(specs.map((s) => s.name));
      for (const r of out) {
        expect(r.created).toBe(true);
        const { history, ...stored } = await engine.getTask(r.task.id);
        expect(history).toEqual([]);
        expect(r.task).toEqual(stored);
      }
    }
    const counted = new Database(engine.store.location, { readonly: true })
      .prepare(
        "SELECT group_name AS g, count(*) AS n FROM tasks WHERE status = 'pending' GROUP BY 1 ORDER BY 1",
      )
      .all();
    expect((await engine.stats()).groups.map((g) => ({ g: g.name, n: g.counts.pending }))).toEqual(counted);
    expect((await engine.stats()).counts.pending).toBe(305);
  });

  it("returns the payload as stored, not the caller's object", async () => {
    const engine = await testEngine();
    const body = { report: 'daily', n: 1 };
    const { task } = await engine.enqueue({
      kind: 'http',
      payload: { url: 'http://127.0.0.1:9/hook', method: 'POST', body },
    });
    body.n = 2; // the caller reuses its object
    expect(task.payload).toMatchObject({ body: { report: 'daily', n: 1 } });
    expect(task.payload).toEqual((await engine.getTask(task.id)).payload);
  });

  it('dedupes unique keys inside one batch and against the file, keeping the batch order', async () => {
    const engine = await testEngine();
    const held = (await engine.enqueue({ kind: 'sleep', unique: 'k1', payload: { ms: 0 } })).task;
    const out = await engine.enqueueMany([
      { kind: 'sleep', name: 'x', unique: 'k2', payload: { ms: 0 } },
      { kind: 'sleep', name: 'y', unique: 'k1', payload: { ms: 0 } },
      { kind: 'sleep', name: 'z', payload: { ms: 0 } },
      { kind: 'sleep', name: 'w', unique: 'k2', payload: { ms: 0 } },
    ]);
    expect(out.map((r) => [r.task.name, r.created])).toEqual([
      ['x', true],
      ['sleep', false],
      ['z', true],
      ['x', false],
    ]);
    expect(out[1]!.task).toEqual(held);
    expect(out[3]!.task).toEqual(out[0]!.task);
    expect((await engine.stats()).counts.pending).toBe(3);
  });

  it('claims past tasks delayed in a better priority, and wakes for the earliest delayed one', () => {
    const store = new SqliteTaskStore(path.join(tempDir(), 'q.db'));
    try {
      const t = newTaskRow();
      const worker = { id: 'w@h:1:a', pid: process.pid, host: 'h' };
      store.updateSettings({ globalConcurrency: 10 });
      store.enqueue(
        [
          { ...t, group: 'a', priority: 1, runAt: 50_000 },
          { ...t, group: 'a', priority: 1, runAt: 40_000 },
          { ...t, group: 'a', priority: 8, runAt: 30_000 },
          { ...t, group: 'a', priority: 7, runAt: 0 },
          { ...t, group: 'b', priority: 9, runAt: 20_000 },
        ],
        0,
      );
      const tick = (now: number) =>
        store.tick({ now: () => now, worker, leaseMs: 60_000, finishes: [], claimMax: 10 });
      const first = tick(1000);
      expect(first.claimed.map((c) => [c.task.group, c.task.priority])).toEqual([['a', 7]]);
      const idle = tick(1000);
      expect(idle.claimed).toEqual([]);
      expect(idle.nextWakeAt).toBe(20_000); // group b; group a's earliest is 30,000 at priority 8
      // Priority first (8 before 9), whichever group and due time.
      expect(tick(35_000).claimed.map((c) => [c.task.group, c.task.runAt])).toEqual([
        ['a', 30_000],
        ['b', 20_000],
      ]);
      expect(tick(35_000).nextWakeAt).toBe(40_000);
      // A tick that claims in one group still wakes for the next due task of another: the
      // delayed one must not wait for the claimed task to finish.
      store.enqueue([{ ...t, group: 'c', priority: 5, runAt: 36_000 }], 35_000);
      const mixed = tick(36_000);
      expect(mixed.claimed.map((c) => c.task.group)).toEqual(['c']);
      expect(mixed.nextWakeAt).toBe(40_000);
    } finally {
      store.close();
    }
  });

  it("leaves checkpoints to a worker's connection: others wait for twice as many -wal pages", () => {
    // (A worker's own come after its writes, not in its commits: worker-checkpoints.test.ts.)
    const store = new SqliteTaskStore(path.join(tempDir(), 'q.db'));
    try {
      const pages = () => store.db.pragma('wal_autocheckpoint', { simple: true });
      store.enqueue([newTaskRow()], 0);
      expect(pages()).toBe(2048);
      const worker = { id: 'w@h:1:a', pid: process.pid, host: 'h' };
      store.tick({ now: () => 0, worker, leaseMs: 60_000, finishes: [], claimMax: 1 });
      expect(pages()).toBe(0);
    } finally {
      store.close();
    }
  });

  it('keeps exact counts per status and group across every move', async () => {
    const engine = await testEngine();
    await engine.enqueueMany(
      Array.from({ length: 20 }, (_, i) => ({ kind: 'sleep', group: i % 2 ? 'a' : 'b', payload: { ms: 0 } })),
    );
    await engine.cancel([1, 2]);
    engine.start();
    await waitFor(async () => (await engine.stats()).counts.done === 18, '18 done');
    const s = await engine.stats();
    expect(s.counts).toEqual({ pending: 0, running: 0, retrying: 0, done: 18, failed: 0, cancelled: 2 });
    expect(s.groups.map((g) => [g.name, g.counts.done, g.counts.cancelled])).toEqual([
      ['a', 9, 1],
      ['b', 9, 1],
    ]);
    await engine.remove([1]);
    expect((await engine.stats()).counts.cancelled).toBe(1);
    await engine.stop();
  });

  it('purges finished tasks older than the retention and nothing else', async () => {
    let now = Date.now();
    const engine = await testEngine({ clock: { now: () => now } });
    engine.start();
    const old = (await engine.enqueue({ kind: 'sleep', payload: { ms: 0 } })).task;
    await waitFor(async () => (await engine.getTask(old.id)).status === 'done', 'done');
    await engine.pause();
    const waiting = (await engine.enqueue({ kind: 'sleep', payload: { ms: 0 } })).task;
    now += 31 * 24 * 3600_000;
    expect(await engine.purge()).toBe(1); // default retention: 30 days
    expect((await engine.listTasks()).tasks.map((t) => t.id)).toEqual([waiting.id]);
    await engine.stop();
  });

  it('lists with filters, search and paging', async () => {
    const engine = await testEngine();
    await engine.enqueueMany([
      { kind: 'sleep', name: 'backup photos', group: 'disk', payload: { ms: 0 } },
      { kind: 'sleep', name: 'scrape prices', group: 'vendor', payload: { ms: 0 } },
      { kind: 'sleep', name: 'backup mail', group: 'disk', payload: { ms: 0 } },
    ]);
    expect((await engine.listTasks({ search: 'BACKUP' })).tasks.map((t) => t.name)).toEqual([
      'backup mail',
      'backup photos',
    ]);
    expect((await engine.listTasks({ group: 'vendor' })).total).toBe(1);
    const page = await engine.listTasks({ limit: 1, offset: 1, order: 'asc' });
    expect([page.total, page.tasks[0]!.name]).toEqual([3, 'scrape prices']);
    expect(() => parseInput(listQuerySchema, { limit: 0 })).toThrow(
      /limit: must be an integer from 1 to 1000/,
    );
  });

  it('creates the database owner-only and refuses one from a newer schema without touching it', () => {
    const file = path.join(tempDir(), 'q.db');
    new SqliteTaskStore(file).close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const raw = new Database(file);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => new SqliteTaskStore(file)).toThrow(/schema version 99, written by a newer Semaforo/);
    const check = new Database(file);
    expect(check.pragma('user_version', { simple: true })).toBe(99);
    check.close();
  });

  it('refuses a file of a pre-release schema (before schema 1) with one clear line, without touching it', () => {
    const file = path.join(tempDir(), 'q.db');
    const old = new Database(file);
    old.exec('CREATE TABLE tasks (id INTEGER PRIMARY KEY, inserted_by INTEGER)');
    old.pragma('user_version = 7');
    old.close();
    const before = fs.readFileSync(file);
    expect(() => new SqliteTaskStore(file)).toThrow(
      /^this database was written by a pre-release Semaforo \(its schema version 7 predates schema 1 of Semaforo 0\.1\.0\) and cannot be opened; move it aside to start a new queue \(it is left untouched\)\.$/,
    );
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('creates the latest schema, marked as a Semaforo queue, and opens it again as it is', () => {
    const file = path.join(tempDir(), 'q.db');
    new SqliteTaskStore(file).close();
    const check = new Database(file);
    expect(check.pragma('user_version', { simple: true })).toBe(4);
    expect(check.pragma('application_id', { simple: true })).toBe(0x53454d41);
    check.close();
    const again = new SqliteTaskStore(file);
    expect(again.enqueue([newTaskRow()], 1)[0]!.task.id).toBe(1);
    again.close();
  });

  it('moves a schema 1 file to schema 4 in place: schedules and groups keep everything, bursts too', () => {
    const file = path.join(tempDir(), 'q.db');
    const v1 = new Database(file);
    v1.exec(SCHEMA_V1);
    v1.pragma('user_version = 1');
    v1.prepare(
      `INSERT INTO schedules (name, every_ms, template, next_due_at, created_at, updated_at)
       VALUES ('beat', 60000, '{"kind":"sleep","group":"default","payload":{"ms":1}}', 5, 1, 1)`,
    ).run();
    v1.prepare(
      "INSERT INTO groups (name, concurrency, rate_limit, rate_period_ms) VALUES ('api', 2, 5, 1000)",
    ).run();
    v1.close();
    const store = new SqliteTaskStore(file);
    expect(store.stats(Date.now(), 0).groups.find((g) => g.name === 'api')).toMatchObject({
      concurrency: 2,
      rate: { limit: 5, periodMs: 1000 },
      // set before starts were spaced: it keeps its bursts
      burst: 5,
      adaptive: null,
    });
    expect(store.schedules.get('beat')).toMatchObject({
      name: 'beat',
      everyMs: 60_000,
      nextDueAt: 5,
      alarms: { graceMs: null, maxRuntimeMs: null, minRuntimeMs: null },
    });
    store.close();
    const check = new Database(file);
    expect(check.pragma('user_version', { simple: true })).toBe(4);
    check.close();
  });

  it('moves a schema 3 file to schema 4: its gates keep their limits, with no idle condition and no pausing', () => {
    const file = path.join(tempDir(), 'q.db');
    const v3 = new Database(file);
    v3.exec(SCHEMA_V1 + SCHEMA_V2 + SCHEMA_V3);
    v3.pragma('user_version = 3');
    v3.prepare(
      "INSERT INTO gates (scope, max_load, min_free_memory, on_ac) VALUES ('backups', 0.8, 1024, 1)",
    ).run();
    v3.close();
    const store = new SqliteTaskStore(file);
    expect(store.stats(Date.now(), 0).gates).toEqual([
      {
        group: 'backups',
        maxLoad: 0.8,
        minFreeMemory: 1024,
        onAc: true,
        whenIdleMs: null,
        pauseRunning: false,
      },
    ]);
    store.close();
  });

  it("shows a group's Retry-After block by the caller's clock after a group change", () => {
    const store = new SqliteTaskStore(path.join(tempDir(), 'q.db'));
    store.updateGroup('vendor', {}, 0);
    store.db.prepare("UPDATE groups SET blocked_until = 5000 WHERE name = 'vendor'").run();
    expect(store.updateGroup('vendor', { concurrency: 2 }, 4000)).toMatchObject({
      concurrency: 2,
      blockedUntil: 5000,
    });
    expect(store.updateGroup('vendor', { concurrency: 3 }, 6000).blockedUntil).toBeNull();
    store.close();
  });
});
