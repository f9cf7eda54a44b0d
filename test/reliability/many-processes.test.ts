/**
 * Many processes on one file (fixtures/many-run.ts says what the run does and what must hold),
 * and what the file itself must show besides:
 * - the WAL stayed small: checkpoints kept up with six processes writing all the time;
 * - `PRAGMA integrity_check` is ok and the trigger-kept counters match the rows.
 *
 * Size: 20,000 tasks and 8 kills by default (15-40 s on a shared, busy 2-core machine).
 * `SEMAFORO_SOAK=1` soaks: 200,000 tasks and 60 kills (several minutes; run it alone:
 * `SEMAFORO_SOAK=1 npx vitest run test/reliability/many-processes.test.ts`).
 * `SEMAFORO_SEED=n` replays a run.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { newTaskRow, tempDir } from '../helpers.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import { WAL_SIZE_LIMIT } from '../../electron/core/store/sqlite/open.ts';
import { checkFile } from './fixtures/file-checks.ts';
import {
  manyRun,
  manyRunTitle,
  type AttemptRow,
  type ManyRunBackend,
  type TaskRow,
} from './fixtures/many-run.ts';

const SOAK = process.env.SEMAFORO_SOAK === '1';
const SEED = Number(process.env.SEMAFORO_SEED ?? 20261203);
const SIZE = SOAK
  ? { tasks: 200_000, kills: 60, budgetMs: 3 * 3600_000 }
  : { tasks: 20_000, kills: 8, budgetMs: 240_000 };

let walMax = 0;
const sqliteBackend: ManyRunBackend = {
  location: (dir) => path.join(dir, 'q.db'),
  open: async (db) => {
    const file = new Database(db, { readonly: true });
    return {
      // Sampling the WAL's size on the way.
      done: async () => {
        walMax = Math.max(walMax, fs.existsSync(`${db}-wal`) ? fs.statSync(`${db}-wal`).size : 0);
        return file
          .prepare<[], number>("SELECT coalesce(sum(n), 0) FROM counts WHERE status = 'done'")
          .pluck()
          .get()!;
      },
      leaseHolders: async () =>
        new Set(
          file
            .prepare<[], number>("SELECT DISTINCT owner_pid FROM tasks WHERE status = 'running'")
            .pluck()
            .all(),
        ),
      tasks: async () =>
        file
          .prepare<[], TaskRow>('SELECT id, unique_key, status, attempts, lease_owner FROM tasks ORDER BY id')
          .all(),
      history: async () =>
        file
          .prepare<[], AttemptRow>(
            `SELECT h.task_id, h.type, h.attempt, h.outcome, h.started_at, h.ended_at, h.worker, t.group_name
             FROM history h JOIN tasks t ON t.id = h.task_id ORDER BY h.task_id, h.id`,
          )
          .all(),
      close: async () => void file.close(),
    };
  },
  after: async (db) => {
    // Under contention a checkpoint can lag (a reader still on an old snapshot), but it catches
    // up: the WAL does not grow with the number of tasks (without checkpoints it would hold
    // every page written, over 100 MB here).
    expect(walMax).toBeLessThanOrEqual(4 * WAL_SIZE_LIMIT);
    checkFile(db);
    return `WAL at most ${(walMax / 1024 / 1024).toFixed(1)} MB`;
  },
};

describe('many processes on one file, workers killed at random', () => {
  it(
    manyRunTitle(SIZE),
    async () => {
      process.stdout.write(`many-processes: ${await manyRun(sqliteBackend, SIZE, SEED)}\n`);
    },
    2 * SIZE.budgetMs + 30_000, // two waits of the budget each (many-run.ts)
  );
});

describe('claims from processes that wait for the write lock', () => {
  it('are stamped with the time read once the lock is held, not before the wait', async () => {
    const db = path.join(tempDir(), 'q.db');
    const store = new SqliteTaskStore(db);
    store.enqueue([newTaskRow({ kind: 'probe', name: 'p', group: 'g', maxAttempts: 1 })], 0);
    let readUnderLock: boolean | null = null;
    const out = store.tick({
      now: () => {
        readUnderLock = store.db.inTransaction;
        return 5000;
      },
      worker: { id: 'w', pid: process.pid, host: 'h' },
      leaseMs: 1000,
      finishes: [],
      claimMax: 1,
    });
    store.close();
    expect(readUnderLock).toBe(true);
    expect(out.claimed.map((c) => c.task.startedAt)).toEqual([5000]);
  });
});
