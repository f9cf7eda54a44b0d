/**
 * Writes new task rows, many per statement, with the ids the inbox handed out (inbox.ts). A
 * better-sqlite3 call costs about as much as the row it inserts, so a batch goes in as multi-row
 * INSERTs, and the per-group counters are bumped once per group and batch rather than per row.
 *
 * Must run inside the caller's write transaction.
 */
import type { Database, Statement } from 'better-sqlite3';
import { TASK_COLUMNS, TASK_FIELDS, fieldIndex, sqlLiteral, type SqlValue } from './task-columns.ts';
import { prepareOnUse } from './lazy-statement.ts';

/** Bound per row, in this order: the id, the stored fields, the enqueue time. */
const BOUND = ['id', ...TASK_FIELDS.map((c) => c.column), 'created_at'];
const CONSTANT = TASK_COLUMNS.flatMap((c) => (c.enqueue.from === 'constant' ? [c] : []));
const COLUMNS = [...BOUND, ...CONSTANT.map((c) => c.column)].join(', ');
const ROW = `(${[
  ...BOUND.map(() => '?'),
  ...CONSTANT.map((c) => sqlLiteral(c.enqueue.from === 'constant' ? c.enqueue.value : null)),
].join(', ')})`;
const PARAMS_PER_ROW = BOUND.length;
/**
 * Statement sizes, largest first; any count is a sum of these. 64 rows of parameters stay far
 * below SQLite's limit of 32,766 per statement.
 */
const CHUNKS = [64, 16, 4, 1] as const;
const GROUP_AT = fieldIndex('group_name');

export class TaskInserter {
  private readonly byRows = new Map<number, Statement<unknown[]>>();
  private readonly addGroup: Statement<[string]>;
  private readonly addCount: Statement<[string, string, number]>;
  private readonly addUnreadable: Statement<[number, number, number, number, string]>;

  constructor(db: Database) {
    for (const n of CHUNKS) {
      this.byRows.set(
        n,
        prepareOnUse(db, `INSERT INTO tasks (${COLUMNS}) VALUES ${Array(n).fill(ROW).join(', ')}`),
      );
    }
    this.addGroup = prepareOnUse(db, 'INSERT OR IGNORE INTO groups (name) VALUES (?)');
    this.addCount = prepareOnUse(
      db,
      `INSERT INTO counts (group_name, status, n) VALUES (?, ?, ?)
       ON CONFLICT (group_name, status) DO UPDATE SET n = n + excluded.n`,
    );
    this.addUnreadable = prepareOnUse(
      db,
      `INSERT INTO tasks (id, kind, name, group_name, priority, payload, status, max_attempts,
         run_at, created_at, finished_at, error)
       VALUES (?, '(unreadable)', 'unreadable task', 'default', 5, '{}', 'failed', 1, ?, ?, ?, ?)`,
    );
  }

  /**
   * Inserts pending rows from stored fields (task-columns.ts), with the ids first, first + 1,
   * ..., enqueued at `createdAt`.
   */
  insert(tasks: readonly (readonly SqlValue[])[], first: number, createdAt: readonly number[]): void {
    let at = 0;
    for (const size of CHUNKS) {
      const statement = this.byRows.get(size)!;
      while (tasks.length - at >= size) {
        const params = new Array<SqlValue>(size * PARAMS_PER_ROW);
        let o = 0;
        for (let i = at; i < at + size; i++) {
          params[o++] = first + i;
          for (const v of tasks[i]!) params[o++] = v;
          params[o++] = createdAt[i]!;
        }
        const { changes } = statement.run(params);
        if (changes !== size) throw new Error(`inserted ${changes} of ${size} task rows`);
        at += size;
      }
    }
    const perGroup = new Map<string, number>();
    for (const t of tasks) {
      const group = t[GROUP_AT] as string;
      perGroup.set(group, (perGroup.get(group) ?? 0) + 1);
    }
    for (const [group, n] of perGroup) this.count(group, 'pending', n);
  }

  /**
   * Tasks whose stored form could not be read back: written as failed, under their own ids and
   * with the reason, so they show among the failures instead of vanishing.
   */
  insertUnreadable(first: number, n: number, now: number, reason: string): void {
    const error = `this task's stored form in the queue file could not be read (${reason}); it never ran`;
    // Stamped with the time it is found, not enqueued: retention and the failure notices go by it.
    for (let i = 0; i < n; i++) this.addUnreadable.run(first + i, now, now, now, error);
    this.count('default', 'failed', n);
  }

  private count(group: string, status: string, n: number): void {
    this.addGroup.run(group);
    this.addCount.run(group, status, n);
  }
}
