/**
 * Writes new task rows, many per statement, with the ids the inbox handed out (inbox.ts). A
 * better-sqlite3 call costs about as much as the row it inserts (measured with callgrind: ~34k
 * instructions per call against ~36k for the row into this table and its indexes), so a batch
 * goes in as multi-row INSERTs of up to 64 rows, and the per-group counters are bumped once per
 * group and batch instead of by a trigger on every row.
 *
 * Must run inside the caller's write transaction.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { NewTask } from '../task-store.ts';

const COLUMNS = `id, kind, name, group_name, priority, payload, status, max_attempts, run_at, timeout_ms,
  unique_key, created_at, reserved_for, reserved_pid, reserved_host, schedule_id, scheduled_for, inserted_by`;
// inserted_by = 1: written by this version, which keeps the counters itself (see migration 7).
const ROW = "(?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)";
const PARAMS_PER_ROW = 16;
/** Statement sizes, largest first; any count is a sum of these. 64 x 16 parameters stays far
 * below SQLite's limit of 32,766. */
const CHUNKS = [64, 16, 4, 1] as const;

export class TaskInserter {
  private readonly byRows = new Map<number, Statement<unknown[]>>();
  private readonly addGroup: Statement<[string]>;
  private readonly addCount: Statement<[string, string, number]>;
  private readonly addUnreadable: Statement<[number, number, number, number, string]>;

  constructor(db: Database) {
    for (const n of CHUNKS) {
      this.byRows.set(
        n,
        db.prepare(`INSERT INTO tasks (${COLUMNS}) VALUES ${Array(n).fill(ROW).join(', ')}`),
      );
    }
    this.addGroup = db.prepare('INSERT OR IGNORE INTO groups (name) VALUES (?)');
    this.addCount = db.prepare(
      `INSERT INTO counts (group_name, status, n) VALUES (?, ?, ?)
       ON CONFLICT (group_name, status) DO UPDATE SET n = n + excluded.n`,
    );
    this.addUnreadable = db.prepare(
      `INSERT INTO tasks (id, kind, name, group_name, priority, payload, status, max_attempts,
         run_at, created_at, finished_at, error, inserted_by)
       VALUES (?, '(unreadable)', 'unreadable task', 'default', 5, '{}', 'failed', 1, ?, ?, ?, ?, 1)`,
    );
  }

  /** Inserts `tasks` as pending rows with the ids first, first + 1, ..., enqueued at `createdAt`. */
  insert(tasks: readonly NewTask[], first: number, createdAt: readonly number[]): void {
    let at = 0;
    for (const size of CHUNKS) {
      const statement = this.byRows.get(size)!;
      while (tasks.length - at >= size) {
        const params = new Array<unknown>(size * PARAMS_PER_ROW);
        for (let i = 0; i < size; i++)
          bind(params, i * PARAMS_PER_ROW, first + at + i, tasks[at + i]!, createdAt[at + i]!);
        const { changes } = statement.run(params);
        if (changes !== size) throw new Error(`inserted ${changes} of ${size} task rows`);
        at += size;
      }
    }
    const perGroup = new Map<string, number>();
    for (const t of tasks) perGroup.set(t.group, (perGroup.get(t.group) ?? 0) + 1);
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

function bind(params: unknown[], o: number, id: number, t: NewTask, now: number): void {
  params[o] = id;
  params[o + 1] = t.kind;
  params[o + 2] = t.name;
  params[o + 3] = t.group;
  params[o + 4] = t.priority;
  params[o + 5] = t.payload;
  params[o + 6] = t.maxAttempts;
  params[o + 7] = t.runAt;
  params[o + 8] = t.timeout;
  params[o + 9] = t.unique;
  params[o + 10] = now;
  params[o + 11] = t.reservedFor?.id ?? null;
  params[o + 12] = t.reservedFor?.pid ?? null;
  params[o + 13] = t.reservedFor?.host ?? null;
  params[o + 14] = t.schedule?.id ?? null;
  params[o + 15] = t.schedule?.dueAt ?? null;
}
