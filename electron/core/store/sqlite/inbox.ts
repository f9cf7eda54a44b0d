/**
 * The inbox: how tasks enter the queue file.
 *
 * An enqueue appends one row holding all its tasks, as JSON, in one statement that needs no
 * explicit transaction: one page in the WAL however many tasks it carries. Writing each task
 * into `tasks` instead costs a page for the row, one per index it is in and one for the
 * counters, and those pages dominate a small commit (a single enqueue took 3x as long). The
 * next write transaction of any process (a dispatcher's tick, an operator action, a read that
 * finds the inbox non-empty) moves every waiting row into `tasks` and its counters, inside that
 * transaction, so nobody ever reads a task half moved.
 *
 * Ids: a row with n tasks has the id of its last task, and its tasks are id - n + 1 .. id. A new
 * row takes max(id) + n in the same statement, so the ids are final when the enqueue returns.
 * Once moved, only the newest row stays, emptied, to keep the sequence (see migration 7).
 *
 * The row is written by this code and read back by it, but the file is input from outside like
 * any other: a row that does not decode becomes failed tasks under its ids, with the reason.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { NewTask } from '../task-store.ts';
import { splitByText } from './split-by-text.ts';
import type { TaskInserter } from './insert-tasks.ts';

/** One task as stored in an inbox row; the order of NewTask's fields. */
type Stored = [
  kind: string,
  name: string,
  group: string,
  priority: number,
  payload: string,
  maxAttempts: number,
  runAt: number,
  timeout: number | null,
  unique: string | null,
  reservedId: string | null,
  reservedPid: number | null,
  reservedHost: string | null,
  scheduleId: number | null,
  scheduledFor: number | null,
];

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
    this.append = db.prepare(
      `INSERT INTO inbox (id, n, tasks, created_at)
       SELECT coalesce(max(id), 0) + :n, :n, :tasks, :now FROM inbox`,
    );
    // One task: SQLite's own new rowid is max(id) + 1 already (2 us less than the general form).
    this.appendOne = db.prepare('INSERT INTO inbox (n, tasks, created_at) VALUES (1, ?, ?)');
    this.waitingRows = db.prepare('SELECT id, n, created_at FROM inbox WHERE n > 0 AND id >= ? ORDER BY id');
    this.rowText = db.prepare('SELECT tasks FROM inbox WHERE id = ?');
    this.anyWaiting = db.prepare('SELECT EXISTS (SELECT 1 FROM inbox WHERE n > 0) AS waiting');
    // Moved rows go (every waiting row in the range was moved: see moveAll's `from`), except
    // the newest of all, which stays emptied to keep the sequence; older emptied rows go too.
    this.dropMoved = db.prepare(
      'DELETE FROM inbox WHERE id BETWEEN ? AND ? AND id < (SELECT max(id) FROM inbox)',
    );
    this.emptyMoved = db.prepare('UPDATE inbox SET n = 0, tasks = NULL WHERE id = ?');
    this.dropKeepers = db.prepare('DELETE FROM inbox WHERE n = 0 AND id < (SELECT max(id) FROM inbox)');
  }

  /**
   * The rows `tasks` take. Usually one; a batch whose payloads add up to more than ROW_CHARS
   * is split, so that no row nears V8's string limit or SQLite's value limit, and the mover
   * parses a bounded amount at a time. More than one row must be appended in one transaction
   * (the caller's) to stay all or nothing.
   */
  rows(tasks: readonly NewTask[]): (readonly NewTask[])[] {
    return splitByText(
      tasks,
      (t) => t.payload.length + t.name.length + (t.unique?.length ?? 0) + TASK_OVERHEAD_CHARS,
      ROW_CHARS,
    );
  }

  /** Appends the rows (from `rows`) and returns the id of the first task; the others follow it. */
  add(rows: readonly (readonly NewTask[])[], now: number): number {
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
        SELECT i.id - i.n + 1 + j.key AS id, j.value->>0 AS kind, j.value->>1 AS name,
          j.value->>2 AS group_name, j.value->>3 AS priority, j.value->>4 AS payload,
          'pending' AS status, 0 AS attempts, j.value->>5 AS max_attempts, 0 AS retry_after_count,
          j.value->>6 AS run_at, j.value->>7 AS timeout_ms, j.value->>8 AS unique_key,
          NULL AS lease_owner, NULL AS lease_expires_at, NULL AS owner_pid, NULL AS owner_host,
          0 AS cancel_requested, NULL AS progress, i.created_at AS created_at, NULL AS started_at,
          NULL AS finished_at, NULL AS error, NULL AS result, j.value->>9 AS reserved_for,
          j.value->>10 AS reserved_pid, j.value->>11 AS reserved_host, j.value->>12 AS schedule_id,
          j.value->>13 AS scheduled_for, 1 AS inserted_by
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
    let run: NewTask[] = [];
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

function encode(tasks: readonly NewTask[]): string {
  const out = new Array<Stored[number][]>(tasks.length);
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i]!;
    out[i] = [
      t.kind,
      t.name,
      t.group,
      t.priority,
      t.payload,
      t.maxAttempts,
      t.runAt,
      t.timeout,
      t.unique,
      t.reservedFor?.id ?? null,
      t.reservedFor?.pid ?? null,
      t.reservedFor?.host ?? null,
      t.schedule?.id ?? null,
      t.schedule?.dueAt ?? null,
    ];
    // Most tasks have no timeout, key, reservation or schedule: 35 bytes of nulls a task, a
    // third of the row, left out (decode reads missing trailing fields as null).
    const stored = out[i]!;
    while (stored.length > REQUIRED && stored[stored.length - 1] === null) stored.pop();
  }
  return JSON.stringify(out);
}

/** kind .. runAt: always stored; the rest may be cut off when null. */
const REQUIRED = 7;
const isText = (v: unknown): v is string => typeof v === 'string';
const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const orNull =
  <T>(check: (v: unknown) => v is T) =>
  (v: unknown): v is T | null =>
    v === null || check(v);
const FIELDS: readonly [name: string, check: (v: unknown) => boolean][] = [
  ['kind', isText],
  ['name', isText],
  ['group', isText],
  ['priority', (v) => isInt(v) && v >= 0 && v <= 9],
  ['payload', isText],
  ['maxAttempts', (v) => isInt(v) && v >= 1],
  ['runAt', isTime],
  ['timeout', orNull(isInt)],
  ['unique', orNull(isText)],
  ['reservedFor.id', orNull(isText)],
  ['reservedFor.pid', orNull(isInt)],
  ['reservedFor.host', orNull(isText)],
  ['schedule.id', orNull(isInt)],
  ['schedule.dueAt', orNull(isTime)],
];

/** The row's tasks, or why they cannot be read. */
export function decode(text: string | null, n: number): NewTask[] | string {
  let v: unknown;
  try {
    v = JSON.parse(text ?? 'null');
  } catch (err) {
    return `not JSON: ${(err as Error).message}`;
  }
  if (!Array.isArray(v) || v.length !== n) return `expected a list of ${n} tasks`;
  const out = new Array<NewTask>(n);
  for (let i = 0; i < n; i++) {
    const s: unknown = v[i];
    if (!Array.isArray(s) || s.length < REQUIRED || s.length > FIELDS.length)
      return `task ${i}: expected ${REQUIRED} to ${FIELDS.length} fields`;
    while (s.length < FIELDS.length) s.push(null);
    for (let f = 0; f < FIELDS.length; f++) {
      const [name, check] = FIELDS[f]!;
      if (!check(s[f])) return `task ${i}: ${name} is ${JSON.stringify(s[f]) ?? 'missing'}`;
    }
    const t = s as Stored;
    out[i] = {
      kind: t[0],
      name: t[1],
      group: t[2],
      priority: t[3],
      payload: t[4],
      maxAttempts: t[5],
      runAt: t[6],
      timeout: t[7],
      unique: t[8],
      reservedFor: t[9] === null ? null : { id: t[9], pid: t[10] ?? 0, host: t[11] ?? '' },
      schedule: t[12] === null ? null : { id: t[12], dueAt: t[13] },
    };
  }
  return out;
}
