import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LATEST_SCHEMA_VERSION, SchemaTooNewError, migrate } from './migrations.ts';

export interface OpenOptions {
  /** How long a write waits for another process's transaction before "database busy". */
  busyTimeoutMs?: number;
  /**
   * 'normal': no commit of this connection waits for fsync (plainjob's setting), for comparisons
   * only. Otherwise the queue's durability setting decides (see commits.ts).
   */
  durability?: 'normal';
}

/**
 * Opens (creating if needed) the queue database: owner-only file and folder, WAL so readers never
 * block the writer, a busy timeout so processes sharing the file wait instead of failing, and
 * every pending migration applied.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Database.Database {
  if (file !== ':memory:') {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Create the file ourselves so it is owner-only from its first byte; SQLite gives the
    // -wal and -shm files the same mode as the database file.
    try {
      fs.closeSync(fs.openSync(file, 'wx', 0o600));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    tightenMode(file);
  }
  const db = new Database(file, { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    // Check before anything writes: even switching to WAL rewrites the header of a newer file.
    const found = db.pragma('user_version', { simple: true }) as number;
    if (found > LATEST_SCHEMA_VERSION) throw new SchemaTooNewError(found, LATEST_SCHEMA_VERSION);
    db.pragma('journal_mode = WAL');
    // The synchronous level is set per commit by Commits (commits.ts).
    db.pragma('foreign_keys = OFF');
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

function tightenMode(file: string): void {
  try {
    const st = fs.statSync(file);
    if (process.getuid && st.uid === process.getuid() && (st.mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  } catch {
    // Not ours to change (another user's file opened read-only, say): SQLite reports real problems.
  }
}
