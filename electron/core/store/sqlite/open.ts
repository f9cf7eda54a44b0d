import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LATEST_SCHEMA_VERSION, SchemaTooNewError, migrate } from './migrations.ts';

export interface OpenOptions {
  /** How long a write waits for another process's transaction before "database busy". */
  busyTimeoutMs?: number;
  /**
   * 'full' (default): each commit is fsynced before it returns, so a task reported done survives
   * a power cut. 'normal': survives a process crash, may lose the last commits on power loss.
   */
  durability?: 'full' | 'normal';
}

/** The size the -wal file is trimmed back to once checkpointed (about twice what it holds between checkpoints). */
export const WAL_SIZE_LIMIT = 8 * 1024 * 1024;

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
    db.pragma(`synchronous = ${options.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
    // Without a limit the -wal file keeps the size of the largest transaction it ever held (a
    // 100,000-task enqueue or purge: tens of MB, more when such transactions pile up before a
    // checkpoint) for as long as any process has the queue open; this trims it back when reused.
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
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
