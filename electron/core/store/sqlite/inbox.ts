/**
 * The inbox: how tasks enter the queue file.
 *
 * An enqueue appends one row holding all its tasks, as JSON, in one statement that needs no
 * explicit transaction: one page in the WAL however many tasks it carries. Writing each task
 * into `tasks` instead costs a page for the row, one per index it is in and one for the
 * counters, and those pages dominate a small commit (test/bench/RESULTS.md has the figures). The
 * next write transaction of any process (a dispatcher's tick, an operator action, a read that
 * finds the inbox non-empty) moves every waiting row into `tasks` and its counters, inside that
 * transaction, so nobody ever reads a task half moved.
 *
 * Ids: a row with n tasks has the id of its last task, and its tasks are id - n + 1 .. id. A new
 * row takes max(id) + n in the same statement, so the ids are final when the enqueue returns.
 * Once moved, only the newest row stays, emptied, to keep the sequence (see schema.ts).
 *
 * The row is written by this code and read back by it, but the file is input from outside like
 * any other: a row that does not decode becomes failed tasks under its ids, with the reason.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { NewTask } from '../task-store.ts';
import { splitByText } from './split-by-text.ts';
import type { TaskInserter } from './insert-tasks.ts';
import {
  REQUIRED_FIELDS,
  TASK_COLUMNS,
  TASK_FIELDS,
  checkFields,
  encodeFields,
  sqlLiteral,
  type SqlValue,
  type StoredTask,
} from './task-columns.ts';
import { prepareOnUse } from './lazy-statement.ts';

/**
 * The waiting tasks as rows of `tasks`, column for column (task-columns.ts): the id from the
 * row's range, stored fields from the task's array, the rest as every new row holds them.
 */
const WAITING_COLUMNS = TASK_COLUMNS.map((c) => {
  const e = c.enqueue;
  const value =
    e.from === 'id'
      ? 'i.id - i.n + 1 + j.key'
      : e.from === 'createdAt'
        ? 'i.created_at'
        : e.from === 'constant'
          ? sqlLiteral(e.value)
          : `j.value->>${TASK_FIELDS.indexOf(c as (typeof TASK_FIELDS)[number])}`;
  return `${value} AS ${c.column}`;
}).join(',\n          ');

interface InboxRow {
  id: number;
  n: number;
  created_at: number;
}

export class Inbox {
  private readonly append: Statement<{ n: number; tasks: string; now: number }>;
  private readonly appendOne: Statement<[string, number]>;
  private readonly waitingRows: Statement<[number], InboxRow>;
  private readonly rowText: Statement<[number], { tasks: string | null }>;
  private readonly anyWaiting: Statement<[], { waiting: number }>;
  private readonly dropMoved: Statement<[number, number]>;
  private readonly emptyMoved: Statement<[number]>;
  private readonly dropKeepers: Statement<[]>;
  private readonly inserter: TaskInserter;
  private readonly db: Database;
  private viewMade = false;

  constructor(db: Database, inserter: TaskInserter) {
    this.db = db;
    this.inserter = inserter;
    this.append = prepareOnUse(
      db,
      `INSERT INTO inbox (id, n, tasks, created_at)
       SELECT coalesce(max(id), 0) + :n, :n, :tasks, :now FROM inbox`,
    );
    // One task: SQLite's own new rowid is max(id) + 1 already, without the subquery.
    this.appendOne = prepareOnUse(db, 'INSERT INTO inbox (n, tasks, created_at) VALUES (1, ?, ?)');
    this.waitingRows = prepareOnUse(
      db,
      'SELECT id, n, created_at FROM inbox WHERE n > 0 AND id >= ? ORDER BY id',
    );
    this.rowText = prepareOnUse(db, 'SELECT tasks FROM inbox WHERE id = ?');
    this.anyWaiting = prepareOnUse(db, 'SELECT EXISTS (SELECT 1 FROM inbox WHERE n > 0) AS waiting');
    // Moved rows go (every waiting row in the range was moved: see moveAll's `from`), except
    // the newest of all, which stays emptied to keep the sequence; older emptied rows go too.
    this.dropMoved = prepareOnUse(
      db,
      'DELETE FROM inbox WHERE id BETWEEN ? AND ? AND id < (SELECT max(id) FROM inbox)',
    );
    this.emptyMoved = prepareOnUse(db, 'UPDATE inbox SET n = 0, tasks = NULL WHERE id = ?');
    this.dropKeepers = prepareOnUse(db, 'DELETE FROM inbox WHERE n = 0 AND id < (SELECT max(id) FROM inbox)');
  }

  /**
   * The rows `tasks` take. Usually one; a batch whose payloads add up to more than ROW_CHARS
   * is split, so that no row nears V8's string limit or SQLite's value limit, and the mover
   * parses a bounded amount at a time. More than one row must be appended in one transaction
   * (the caller's) to stay all or nothing.
   */
  rows(tasks: readonly NewTask[]): (readonly StoredTask[])[] {
    return splitByText(tasks.map(encodeFields), (t) => textLength(t) + TASK_OVERHEAD_CHARS, ROW_CHARS);
  }

  /** Appends the rows (from `rows`) and returns the id of the first task; the others follow it. */
  add(rows: readonly (readonly StoredTask[])[], now: number): number {
    let first = -1;
    for (const part of rows) {
      const last = Number(
        (part.length === 1
          ? this.appendOne.run(encode(part), now)
          : this.append.run({ n: part.length, tasks: encode(part), now })
        ).lastInsertRowid,
      );
      // Past 2^53 ids lose precision as numbers: refuse rather than return wrong ids.
      if (last > Number.MAX_SAFE_INTEGER)
        throw new Error('task ids have run past 2^53; this queue file cannot take more tasks');
      if (first < 0) first = last - part.length + 1;
    }
    return first;
  }

  /** Whether any row waits to be moved (one page read: the inbox is tiny once moved). */
  waiting(): boolean {
    return this.anyWaiting.get()!.waiting === 1;
  }

  /**
   * For a reader that cannot move them (the file is read-only, the disk full): the waiting tasks
   * as rows of `tasks`, in a TEMP view (a read-only connection may create one; nothing reaches
   * the file). Its columns are those of `tasks`, in order, so the two can be read as one.
   */
  waitingView(): string {
    if (!this.viewMade) {
      this.db.exec(`CREATE TEMP VIEW IF NOT EXISTS waiting_tasks AS
        SELECT ${WAITING_COLUMNS}
        FROM main.inbox AS i, json_each(i.tasks) AS j
        WHERE i.n > 0 AND json_valid(i.tasks) AND json_type(i.tasks) = 'array'
          AND json_array_length(i.tasks) = i.n`);
      this.viewMade = true;
    }
    return 'temp.waiting_tasks';
  }

  /**
   * Moves the waiting rows into `tasks` (those holding ids from `from` on, or all); inside the
   * caller's write transaction.
   */
  moveAll(from = 0): void {
    const rows = this.waitingRows.all(from);
    if (rows.length === 0) return;
    // Rows with consecutive ids (single enqueues, one row each) go in together, as multi-row
    // INSERTs, up to ROW_CHARS of text at a time: never the whole backlog in memory at once.
    let run: SqlValue[][] = [];
    let createdAt: number[] = [];
    let runFirst = 0;
    let runChars = 0;
    const flush = () => {
      if (run.length > 0) this.inserter.insert(run, runFirst, createdAt);
      run = [];
      createdAt = [];
      runChars = 0;
    };
    for (const r of rows) {
      const first = r.id - r.n + 1;
      const text = this.rowText.get(r.id)?.tasks ?? null;
      const decoded = decode(text, r.n);
      if (typeof decoded === 'string') {
        flush();
        this.inserter.insertUnreadable(first, r.n, Date.now(), decoded);
        continue;
      }
      if (run.length > 0 && (first !== runFirst + run.length || runChars > ROW_CHARS)) flush();
      if (run.length === 0) runFirst = first;
      for (const t of decoded) {
        run.push(t);
        createdAt.push(r.created_at);
      }
      runChars += text?.length ?? 0;
    }
    flush();
    this.dropMoved.run(rows[0]!.id, rows[rows.length - 1]!.id);
    this.emptyMoved.run(rows[rows.length - 1]!.id); // still there only if it is the newest
    this.dropKeepers.run();
  }
}

/** Payload characters per inbox row, past which a batch is split (see rows). */
const ROW_CHARS = 16 * 1024 * 1024;
/** What a task adds to its row besides its payload, roughly. */
const TASK_OVERHEAD_CHARS = 200;

function textLength(t: StoredTask): number {
  let n = 0;
  for (const v of t) if (typeof v === 'string') n += v.length;
  return n;
}

function encode(tasks: readonly StoredTask[]): string {
  for (const stored of tasks) {
    // Most tasks have no timeout, key, reservation or schedule: a third of the row in nulls,
    // left out (read back as null).
    while (stored.length > REQUIRED_FIELDS && stored[stored.length - 1] === null) stored.pop();
  }
  return JSON.stringify(tasks);
}

/** The row's tasks as stored fields (task-columns.ts), or why they cannot be read. */
export function decode(text: string | null, n: number): SqlValue[][] | string {
  let v: unknown;
  try {
    v = JSON.parse(text ?? 'null');
  } catch (err) {
    return `not JSON: ${(err as Error).message}`;
  }
  if (!Array.isArray(v) || v.length !== n) return `expected a list of ${n} tasks`;
  for (let i = 0; i < n; i++) {
    const why = checkFields(v[i]);
    if (why !== null) return `task ${i}: ${why}`;
  }
  return v as SqlValue[][];
}
