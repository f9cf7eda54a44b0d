/**
 * The column map (electron/core/store/sqlite/task-columns.ts) drives the insert, the inbox's
 * stored form and view, and the decoding of a row. What a user relies on: a task reads the same
 * whichever way it is read (waiting in the inbox, moved into tasks, or as enqueue returned it),
 * and no field is dropped on the way.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../shared/domain.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import {
  TASK_COLUMNS,
  encodeFields,
  toTask,
  type TaskRow,
} from '../../electron/core/store/sqlite/task-columns.ts';
import type { NewTask } from '../../electron/core/store/task-store.ts';
import { newTaskRow, tempDir } from '../helpers.ts';

/** Every property of a Task: the type checker refuses this list if one is missing or extra. */
const TASK_PROPERTIES: Record<keyof Task, true> = {
  id: true,
  kind: true,
  name: true,
  group: true,
  priority: true,
  status: true,
  attempts: true,
  maxAttempts: true,
  payload: true,
  result: true,
  error: true,
  runAt: true,
  timeout: true,
  unique: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
  progress: true,
  leaseOwner: true,
  leaseExpiresAt: true,
  cancelRequested: true,
  retryAfterCount: true,
  reservedFor: true,
  scheduleId: true,
  uses: true,
};

/** A task with every field set, none to its default. */
const FULL: NewTask = newTaskRow({
  kind: 'shell',
  name: "it's all set",
  group: 'mail',
  priority: 2,
  payload: '{"cmd":"true","n":[1,2.5]}',
  maxAttempts: 4,
  runAt: 1234.5,
  timeout: 60_000,
  unique: 'key-1',
  reservedFor: { id: 'run-1', pid: 4321, host: 'box' },
  schedule: { id: 9, dueAt: 1200 },
});

/** Each column's value with its SQL type, so 1 and '1' or 1 and 1.0 do not pass for each other. */
function typed(store: SqliteTaskStore, from: string, id: number): Record<string, [unknown, string]> {
  const cols = TASK_COLUMNS.map((c) => `${c.column}, typeof(${c.column}) AS "${c.column}:type"`).join(', ');
  const r = store.db
    .prepare<[number], Record<string, unknown>>(`SELECT ${cols} FROM ${from} WHERE id = ?`)
    .get(id)!;
  return Object.fromEntries(
    TASK_COLUMNS.map((c) => [c.column, [r[c.column], r[`${c.column}:type`] as string]]),
  );
}

describe('the column map', () => {
  it('lists every column of tasks, in table order', () => {
    const store = new SqliteTaskStore(path.join(tempDir(), 'q.db'));
    const table = store.db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('tasks')").all();
    expect(TASK_COLUMNS.map((c) => c.column)).toEqual(table.map((c) => c.name));
    store.close();
  });

  it('decodes every Task property exactly once', () => {
    const readers = TASK_COLUMNS.flatMap((c) => (c.task ? [c.task.name] : []));
    expect([...readers].sort()).toEqual(Object.keys(TASK_PROPERTIES).sort());
    expect(new Set(readers).size).toBe(readers.length);
  });

  it('agrees between the inbox view, the inserted row and what enqueue returned, on every column', () => {
    const file = path.join(tempDir(), 'q.db');
    const writer = new SqliteTaskStore(file);
    const reader = new SqliteTaskStore(file);
    // The reader cannot move waiting tasks (as on a read-only file): it reads them through the view.
    reader.db.exec(`CREATE TEMP TRIGGER read_only BEFORE INSERT ON main.tasks BEGIN
      SELECT RAISE(ABORT, 'attempt to write a readonly database'); END`);
    const [plain] = writer.enqueue([newTaskRow({ name: 'plain' })], 77);
    const [reserved] = writer.enqueue([{ ...FULL, unique: null, schedule: null }], 78);
    // A key or a schedule is moved in at once (checked against the file): stored by hand here,
    // as the inbox stores a task, to be read through the view too.
    const full = writer.db
      .prepare<[string], { id: number }>(
        'INSERT INTO inbox (id, n, tasks, created_at) SELECT max(id) + 1, 1, ?, 79 FROM inbox RETURNING id',
      )
      .get(JSON.stringify([encodeFields(FULL)]))!.id;
    const ids = [plain!.task.id, reserved!.task.id, full];

    expect(reader.listTasks({}).total).toBe(3);
    const inView = ids.map((id) => typed(reader, 'temp.waiting_tasks', id));
    reader.db.exec('DROP TRIGGER temp.read_only');
    expect(writer.listTasks({}).total).toBe(3); // moved in by a process that can write
    expect(reader.db.prepare('SELECT count(*) AS n FROM inbox WHERE n > 0').get()).toEqual({ n: 0 });
    expect(ids.map((id) => typed(reader, 'main.tasks', id))).toEqual(inView);
    expect(inView[2]).toMatchObject({
      reserved_pid: [4321, 'integer'],
      run_at: [1234.5, 'real'],
      scheduled_for: [1200, 'integer'],
      unique_key: ['key-1', 'text'],
    });

    // Enqueue's own record is the row read back, for a task of every path.
    writer.cancel([full], 80); // frees the key and the due time for the same task again
    const [keyed] = writer.enqueue([{ ...FULL, schedule: { id: 9, dueAt: 1300 } }], 81);
    for (const r of [plain!, reserved!, keyed!]) {
      const row = reader.db.prepare<[number], TaskRow>('SELECT * FROM tasks WHERE id = ?').get(r.task.id)!;
      expect(r.task).toEqual(toTask(row));
      const { history: _history, ...shown } = reader.getTask(r.task.id)!;
      expect(shown).toEqual(r.task);
    }
    expect(keyed!.task).toMatchObject({
      unique: 'key-1',
      reservedFor: 'run-1',
      scheduleId: 9,
      timeout: 60_000,
    });
    writer.close();
    reader.close();
  });
});
