/**
 * The inbox (electron/core/store/sqlite/inbox.ts): an enqueue is one appended row that the next
 * write transaction moves into tasks. What a user relies on: the ids an enqueue returns are final,
 * every face sees the task at once (another process's reads included), nothing is lost when the
 * enqueuing process dies, ids are never handed out twice, and a damaged row turns into visible
 * failed tasks instead of stopping the queue.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { WorkerIdentity } from '../../electron/core/store/task-store.ts';
import { exited, newTaskRow, spawnNode, tempDir } from '../helpers.ts';

const worker: WorkerIdentity = { id: 'w1', pid: process.pid, host: 'here' };

function openStore(file: string): SqliteTaskStore {
  return new SqliteTaskStore(file);
}

function waitingRows(store: SqliteTaskStore): number {
  return (store.db.prepare('SELECT count(*) AS n FROM inbox WHERE n > 0').get() as { n: number }).n;
}

describe('the inbox', () => {
  it('hands out consecutive final ids across single, batch and unique-key enqueues', () => {
    const store = openStore(path.join(tempDir(), 'q.db'));
    const ids = [
      ...store.enqueue([newTaskRow()], 1).map((r) => r.task.id),
      ...store.enqueue([newTaskRow(), newTaskRow(), newTaskRow()], 2).map((r) => r.task.id),
      ...store.enqueue([newTaskRow({ unique: 'k' })], 3).map((r) => r.task.id),
      ...store.enqueue([newTaskRow({ name: 'last' })], 4).map((r) => r.task.id),
    ];
    expect(ids).toEqual([1, 2, 3, 4, 5, 6]);
    const page = store.listTasks({ sort: 'createdAt', order: 'asc' });
    expect(page.tasks.map((t) => [t.id, t.createdAt])).toEqual([
      [1, 1],
      [2, 2],
      [3, 2],
      [4, 2],
      [5, 3],
      [6, 4],
    ]);
    expect(store.getTask(6)!.name).toBe('last');
    store.close();
  });

  it('shows waiting tasks to every reader, in another connection too, with exact counts', () => {
    const file = path.join(tempDir(), 'q.db');
    const writer = openStore(file);
    const reader = openStore(file);
    const [a] = writer.enqueue([newTaskRow({ group: 'mail' })], 10);
    writer.enqueue([newTaskRow({ group: 'mail' }), newTaskRow({ group: 'scrape' })], 11);
    expect(waitingRows(writer)).toBe(2);

    expect(reader.getTask(a!.task.id)).toMatchObject({ id: a!.task.id, status: 'pending', group: 'mail' });
    expect(waitingRows(writer)).toBe(0); // the read moved them in
    const stats = reader.stats(0, 0);
    expect(stats.counts.pending).toBe(3);
    expect(stats.groups.map((g) => [g.name, g.counts.pending]).sort()).toEqual([
      ['mail', 2],
      ['scrape', 1],
    ]);
    expect(reader.listTasks({ status: ['pending'] }).total).toBe(3);

    // A claim in the writer's connection sees them as well, in id order.
    const { claimed } = writer.tick({
      now: () => 20,
      worker,
      leaseMs: 1000,
      claimMax: 10,
      finishes: [],
      reservedOnly: false,
    });
    expect(claimed.map((c) => c.task.id)).toEqual([1, 2, 3]);
    writer.close();
    reader.close();
  });

  it('shows waiting tasks also to a reader that cannot move them (a read-only file)', () => {
    const file = path.join(tempDir(), 'q.db');
    const writer = openStore(file);
    const reader = openStore(file);
    // Its writes into tasks now fail as on a read-only file (storage-faults.test.ts has real ones).
    reader.db.exec(`CREATE TEMP TRIGGER read_only BEFORE INSERT ON main.tasks BEGIN
      SELECT RAISE(ABORT, 'attempt to write a readonly database'); END`);
    writer.enqueue([newTaskRow({ name: 'a', group: 'new', timeout: 5000 })], 10);
    writer.enqueue([newTaskRow({ name: 'b', priority: 2 })], 11);

    const columns = (t: string) =>
      reader.db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${t}')`).all();
    expect(columns('waiting_tasks')).toEqual([]); // made only when needed
    const listed = reader.listTasks({ sort: 'createdAt', order: 'asc' });
    expect(listed.total).toBe(2);
    expect(
      listed.tasks.map((t) => [t.id, t.name, t.group, t.priority, t.timeout, t.status, t.createdAt]),
    ).toEqual([
      [1, 'a', 'new', 5, 5000, 'pending', 10],
      [2, 'b', 'default', 2, null, 'pending', 11],
    ]);
    expect(reader.getTask(2)).toMatchObject({ name: 'b', payload: { ms: 0 }, history: [] });
    const stats = reader.stats(0, 0);
    expect(stats.counts.pending).toBe(2);
    expect(stats.groups.map((g) => [g.name, g.counts.pending]).sort()).toEqual([
      ['default', 1],
      ['new', 1],
    ]);
    expect(columns('waiting_tasks')).toEqual(columns('tasks'));
    expect(waitingRows(writer)).toBe(2); // still waiting: nothing was written

    reader.db.exec('DROP TRIGGER temp.read_only');
    expect(reader.listTasks({}).total).toBe(2);
    expect(writer.listTasks({}).total).toBe(2); // the next process that can write moves them
    expect(waitingRows(writer)).toBe(0);
    writer.close();
    reader.close();
  });

  it('does not make a read wait for another writer: it shows the waiting tasks through the view', () => {
    const file = path.join(tempDir(), 'q.db');
    const writer = openStore(file);
    // Were the read to wait for the lock, it would wait the whole timeout, as the holder below is
    // this same thread: the test would time out long before.
    const reader = new SqliteTaskStore(file, { busyTimeoutMs: 60_000 });
    writer.enqueue([newTaskRow({ name: 'a' }), newTaskRow({ name: 'b' })], 1);
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE'); // another process's long write transaction
    try {
      expect(reader.listTasks({}).tasks.map((t) => t.name)).toEqual(['b', 'a']);
      expect(reader.stats(0, 0).counts.pending).toBe(2);
      expect(waitingRows(writer)).toBe(1);
    } finally {
      holder.exec('COMMIT');
      holder.close();
    }
    expect(reader.getTask(1)).toMatchObject({ name: 'a' });
    expect(waitingRows(writer)).toBe(0); // moved once the lock was free
    expect(reader.db.pragma('busy_timeout', { simple: true })).toBe(60_000);
    writer.close();
    reader.close();
  });

  it('splits a batch too big for one row into several, still consecutive and all or nothing', () => {
    const store = openStore(path.join(tempDir(), 'q.db'));
    const big = JSON.stringify({ blob: 'x'.repeat(7 * 1024 * 1024) });
    const out = store.enqueue(
      Array.from({ length: 4 }, (_, i) => newTaskRow({ name: `big${i}`, payload: big })),
      1,
    );
    expect(out.map((r) => r.task.id)).toEqual([1, 2, 3, 4]);
    const rows = store.db.prepare<[], { n: number }>('SELECT n FROM inbox WHERE n > 0 ORDER BY id').all();
    expect(rows.map((r) => r.n)).toEqual([2, 2]);
    expect(store.getTask(4)!.name).toBe('big3');
    expect(store.listTasks({}).total).toBe(4);
    store.close();
  });

  it('lets every other write go on when waiting tasks cannot be moved, and says why once', () => {
    const errors: string[] = [];
    const store = new SqliteTaskStore(path.join(tempDir(), 'q.db'), {
      onBackgroundError: (m) => errors.push(m),
    });
    store.enqueue([newTaskRow({ name: 'a' }), newTaskRow({ name: 'b' })], 1);
    expect(store.listTasks({}).total).toBe(2); // moved: ids 1, 2
    // A row whose ids were taken meanwhile (a hand edit, a copy of an old file's inbox).
    store.db.prepare('INSERT INTO inbox (id, n, tasks, created_at) VALUES (3, 2, ?, 5)').run(
      JSON.stringify([
        ['sleep', 'x', 'default', 5, '{}', 3, 0],
        ['sleep', 'y', 'default', 5, '{}', 3, 0],
      ]),
    );

    expect(store.cancel([1], 10)).toEqual({ cancelled: [1], requested: [] });
    store.enqueue([newTaskRow({ name: 'c', unique: 'k' })], 11); // checks and moves in at once
    expect(store.getTask(1)!.status).toBe('cancelled');
    expect(errors).toEqual([
      expect.stringMatching(
        /^cannot move enqueued tasks into the queue yet \(they are safe and shown\): UNIQUE constraint failed/,
      ),
    ]);
    expect(waitingRows(store)).toBe(1);
    store.close();
  });

  it('keeps a task whose enqueuing process was killed right after the enqueue returned', async () => {
    const file = path.join(tempDir(), 'q.db');
    openStore(file).close(); // created and migrated
    const script = `
      const { SqliteTaskStore } = await import(${JSON.stringify(path.resolve('electron/core/store/sqlite/sqlite-store.ts'))});
      const s = new SqliteTaskStore(${JSON.stringify(file)});
      const [r] = s.enqueue([{ kind: 'sleep', name: 'survivor', group: 'default', priority: 5, payload: '{"ms":0}', maxAttempts: 3, runAt: 0, timeout: null, unique: null }], 5);
      process.stdout.write(String(r.task.id) + '\\n', () => process.kill(process.pid, 'SIGKILL'));
    `;
    const child = spawnNode(['--input-type=module', '-e', script]);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await exited(child);
    expect(child.signalCode).toBe('SIGKILL');
    const store = openStore(file);
    const id = Number(out.trim());
    expect(id).toBe(1);
    expect(store.getTask(id)).toMatchObject({ name: 'survivor', status: 'pending' });
    expect(store.stats(0, 0).counts.pending).toBe(1);
    store.close();
  });

  it('never hands an id out twice, also after every task was purged', () => {
    const store = openStore(path.join(tempDir(), 'q.db'));
    store.enqueue([newTaskRow(), newTaskRow(), newTaskRow()], 1);
    store.cancel([1, 2, 3], 2);
    expect(store.purgeFinished(10)).toBe(3);
    expect(store.listTasks({}).total).toBe(0);
    expect(store.enqueue([newTaskRow()], 20)[0]!.task.id).toBe(4);
    expect(store.enqueue([newTaskRow({ unique: 'u' })], 21)[0]!.task.id).toBe(5);
    store.close();
  });

  it('turns a damaged row into failed tasks under its ids, and the queue goes on', () => {
    const store = openStore(path.join(tempDir(), 'q.db'));
    store.enqueue([newTaskRow()], 1); // id 1
    // A row as a hand edit or a damaged disk might leave it: three tasks, unreadable text.
    store.db.prepare('INSERT INTO inbox (id, n, tasks, created_at) VALUES (4, 3, \'[["sleep"\', 7)').run();
    store.db
      .prepare('INSERT INTO inbox (id, n, tasks, created_at) VALUES (5, 1, ?, 8)')
      .run(
        JSON.stringify([['sleep', 'x', 'default', 12, '{}', 3, 0, null, null, null, null, null, null, null]]),
      );
    const after = store.enqueue([newTaskRow({ name: 'after' })], 9)[0]!.task.id;
    expect(after).toBe(6);

    const failed = store.listTasks({ status: ['failed'], sort: 'createdAt', order: 'asc' }).tasks;
    expect(failed.map((t) => t.id)).toEqual([2, 3, 4, 5]);
    expect(failed[0]!.error).toMatch(/could not be read \(not JSON: .*\); it never ran/);
    expect(failed[3]!.error).toMatch(/could not be read \(task 0: priority is 12\)/);
    expect(store.getTask(6)).toMatchObject({ name: 'after', status: 'pending' });
    const stats = store.stats(0, 0);
    expect(stats.counts).toMatchObject({ pending: 2, failed: 4 });
    store.close();
  });
});
