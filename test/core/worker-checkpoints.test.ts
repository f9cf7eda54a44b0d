/**
 * A worker's checkpoints come after its ticks, not inside their commits (a claimed task would
 * wait for one), and still keep its -wal from growing without bound.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { WorkerCheckpoints } from '../../electron/core/store/sqlite/worker-checkpoints.ts';
import { parseTaskSpecNow } from '../../shared/task-spec-now.ts';
import { newTaskRow, tempDir, testEngine, waitFor } from '../helpers.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';

const nextTurn = () => new Promise((r) => setImmediate(r));

function walDb() {
  const db = new Database(path.join(tempDir(), 'q.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 10');
  db.exec('CREATE TABLE t (x BLOB)');
  const waiting = () => {
    const [s] = db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
    return s!.log - s!.checkpointed;
  };
  // About 25 pages a transaction.
  const write = db.transaction(() => {
    for (let i = 0; i < 25; i++) db.prepare('INSERT INTO t VALUES (zeroblob(3000))').run();
  });
  return { db, waiting, write };
}

describe('worker checkpoints (SQLite)', () => {
  it('checkpoints on the turn after a tick, never inside its commits', async () => {
    const { db, waiting, write } = walDb();
    const c = new WorkerCheckpoints(db, 20);
    write(); // a commit of a connection not yet a worker's: SQLite's autocheckpoint (10 pages)
    expect(waiting()).toBe(0);
    c.afterTick();
    write();
    write();
    // Two commits past the mark, and neither carried a checkpoint.
    expect(waiting()).toBeGreaterThanOrEqual(40);
    c.afterTick();
    await nextTurn();
    expect(waiting()).toBe(0);
    db.close();
  });

  it('also after other writes of a worker, and never for a connection that never ticked', async () => {
    const { db, waiting, write } = walDb();
    db.pragma('wal_autocheckpoint = 0');
    const c = new WorkerCheckpoints(db, 20);
    write();
    c.afterWrite(); // renewals or live output of a connection that never ticked: not its job
    await nextTurn();
    expect(waiting()).toBeGreaterThanOrEqual(20);
    c.afterTick();
    await nextTurn();
    expect(waiting()).toBe(0);
    write();
    c.afterWrite(); // a worker's live output, no tick since
    // on a later turn: within 2 ms of the last check it waits out the rest of those 2 ms
    await waitFor(() => waiting() === 0, "the checkpoint after a worker's write");
    db.close();
  });

  it('tells of a checkpoint that fails once per error, and again after one succeeded', async () => {
    const { db, waiting, write } = walDb();
    const told: string[] = [];
    const c = new WorkerCheckpoints(db, 20, (m) => told.push(m));
    c.afterTick();
    // the disk refuses the copy (an I/O error, as a failing disk gives)
    const pragma = db.pragma.bind(db);
    let failing = true;
    db.pragma = ((source: string, options?: object) => {
      if (failing && source === 'wal_checkpoint(PASSIVE)') throw new Error('disk I/O error');
      return pragma(source, options);
    }) as typeof db.pragma;
    for (let i = 0; i < 3; i++) {
      write();
      c.checkpointIfDue();
    }
    expect(waiting()).toBeGreaterThanOrEqual(60);
    expect(told).toEqual([
      `cannot copy the -wal file of ${db.name} into it (disk I/O error): the -wal file grows with every write until a checkpoint succeeds`,
    ]);
    failing = false;
    c.checkpointIfDue();
    expect(waiting()).toBe(0);
    failing = true;
    write();
    c.checkpointIfDue();
    expect(told).toHaveLength(2);
    db.close();
  });

  it('checkpoints after any write of a worker connection, also once it has stopped ticking', async () => {
    const file = path.join(tempDir(), 'queue.db');
    const store = new SqliteTaskStore(file);
    try {
      const worker = { id: 'w@h:1:a', pid: process.pid, host: 'h' };
      store.tick({ now: () => 0, worker, leaseMs: 60_000, finishes: [], claimMax: 1 });
      const waiting = () => {
        const [s] = store.db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
        return s!.log - s!.checkpointed;
      };
      // A dispatcher stopped (a lost file, engine.stop) while the app goes on enqueuing on its
      // connection: 80 rounds of 2,000 tasks, some 25 pages each.
      let most = 0;
      for (let i = 0; i < 80; i++) {
        store.enqueue(
          Array.from({ length: 2000 }, () => newTaskRow()),
          0,
        );
        most = Math.max(most, waiting());
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(most).toBeLessThan(2000);
      expect(waiting()).toBeLessThan(1000);
    } finally {
      store.close();
    }
  });

  it("keeps a draining worker's -wal below the mark once idle", async () => {
    const file = path.join(tempDir(), 'queue.db');
    const engine = await testEngine({ file });
    const n = 3000;
    await engine.enqueueMany(
      Array.from({ length: n }, () => parseTaskSpecNow({ kind: 'sleep', payload: { ms: 0 } })),
    );
    engine.start();
    await waitFor(async () => (await engine.stats(0)).counts.done === n, 'the drain', 60_000);
    await engine.whenIdle();
    await nextTurn();
    const db = new Database(file);
    const [s] = db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
    db.close();
    // 3,000 tasks write several thousand pages; fewer than the 1,000 mark wait.
    expect(s!.log - s!.checkpointed).toBeLessThan(1000);
    await engine.close();
  });
});
