/**
 * A queue file with random bytes inside is refused, with one line, by every command (not only by
 * the one that happens to read the damaged page), and a running worker that finds it damaged
 * stops writing to it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { wrapSqliteStore } from '../../electron/core/store/sqlite/async-store.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import { cli, freshDb } from '../cli/cli-helpers.ts';
import { testEngine, waitFor } from '../helpers.ts';

/** A queue with enough tasks to span many pages, then 8 KB of random bytes in its middle. */
async function damagedQueue(): Promise<string> {
  const db = freshDb();
  const lines = Array.from({ length: 400 }, (_, i) =>
    JSON.stringify({ kind: 'sleep', name: `t${i} ${'x'.repeat(150)}`, payload: { ms: 0 } }),
  );
  expect((await cli(['enqueue', '--stdin'], { db, stdin: lines.join('\n') })).code).toBe(0);
  expect((await cli(['stats'], { db })).code).toBe(0); // moves the inbox into tasks
  const conn = new Database(db);
  // No free pages left for the bytes to land on harmlessly (the inbox's, once moved).
  conn.exec('VACUUM');
  conn.pragma('wal_checkpoint(TRUNCATE)');
  conn.close();
  const size = fs.statSync(db).size;
  const fd = fs.openSync(db, 'r+');
  fs.writeSync(fd, crypto.randomBytes(8192), 0, 8192, Math.floor(size / 2 / 4096) * 4096);
  fs.closeSync(fd);
  return db;
}

describe('a damaged queue file', () => {
  it('is refused by stats, enqueue and work --drain with one line', async () => {
    const db = await damagedQueue();
    for (const args of [['stats'], ['enqueue', '--', 'true'], ['work', '--drain']]) {
      const r = await cli(args, { db });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      const said = r.stderr.split('\n').filter((l) => l.includes('damaged'));
      expect(said).toEqual([
        expect.stringMatching(
          /the queue file .*queue\.db is damaged \(.*\): nothing more is written to it; restore/,
        ),
      ]);
    }
  });

  it('found damaged by a running worker, it stops dispatching and says so once', async () => {
    const db = freshDb();
    const errors: string[] = [];
    const sync = new SqliteTaskStore(db);
    const engine = await testEngine({
      store: wrapSqliteStore(sync, db),
      integrityCheckIntervalMs: 50,
      logger: { info: () => {}, warn: () => {}, error: (m) => errors.push(m) },
    });
    await engine.enqueueMany(
      Array.from({ length: 400 }, (_, i) => ({
        kind: 'sleep',
        name: `t${i} ${'x'.repeat(150)}`,
        payload: { ms: 0 },
      })),
    );
    await engine.stats(0);
    engine.start();
    await engine.whenIdle();
    const conn = sync.db;
    conn.exec('VACUUM');
    conn.pragma('wal_checkpoint(TRUNCATE)');
    const size = fs.statSync(db).size;
    const fd = fs.openSync(db, 'r+');
    fs.writeSync(fd, crypto.randomBytes(8192), 0, 8192, Math.floor(size / 2 / 4096) * 4096);
    fs.closeSync(fd);
    // Another process writes: this one's page cache, which still holds the good pages, is dropped.
    const other = new Database(db);
    other.exec('CREATE TABLE probe (x); DROP TABLE probe');
    other.close();
    await waitFor(() => errors.some((e) => /is damaged/.test(e)), 'the damage noticed');
    expect(engine.dispatching).toBe(false);
  });
});
