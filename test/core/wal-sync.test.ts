/**
 * Group commit's sync of the -wal file (wal-sync.ts): nothing to sync before the file exists,
 * one descriptor kept while the store is open, none left after it closes.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { WalSync } from '../../electron/core/store/sqlite/wal-sync.ts';
import { tempDir } from '../helpers.ts';

/** The descriptors this process holds open on `file`. */
function openOn(file: string): number {
  const real = fs.realpathSync(file);
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === real;
    } catch {
      return false;
    }
  }).length;
}

describe('WalSync', () => {
  it('syncs nothing before the -wal file exists, then keeps one descriptor until closed', async () => {
    const file = path.join(tempDir(), 'q.db');
    const sync = new WalSync(file);
    await sync.sync(); // no -wal yet: nothing written, nothing to sync
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    const wal = `${file}-wal`;
    const before = openOn(wal); // SQLite's own
    await Promise.all([sync.sync(), sync.sync()]);
    await sync.sync();
    expect(openOn(wal)).toBe(before + 1);
    await sync.close();
    expect(openOn(wal)).toBe(before);
    await sync.sync(); // closed: a retry still syncs, through a descriptor of its own, closed after
    expect(openOn(wal)).toBe(before);
    db.close();
  });
});
