import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Database } from './driver.ts';
import { migrate, schemaVersion } from './migrations.ts';

export interface OpenOptions {
  /** How long a write waits for another process's transaction before "database busy". */
  busyTimeoutMs?: number;
  /**
   * 'normal': no commit of this connection waits for fsync (plainjob's setting), for comparisons
   * only. Otherwise the queue's durability setting decides (see commits.ts).
   */
  durability?: 'normal';
}

/** The size the -wal file is trimmed back to once checkpointed (about twice what it holds between checkpoints). */
export const WAL_SIZE_LIMIT = 8 * 1024 * 1024;

/**
 * Once this many -wal pages wait, they are checkpointed into the database file (two fsyncs and the
 * pages copied). A worker's connection does it at SQLite's 1,000, after its ticks rather than in a
 * commit (worker-checkpoints.ts); any other (an enqueuing script, a CLI command, a screen) in the
 * commit that passes twice that, the size the -wal file is trimmed to anyway: with a worker
 * running, the worker gets there first and the enqueue calls never carry a checkpoint.
 */
export const WORKER_CHECKPOINT_PAGES = 1000;
const OTHER_CHECKPOINT_PAGES = WAL_SIZE_LIMIT / 4096;

/**
 * Opens (creating if needed) the queue database: owner-only file and folder, WAL so readers never
 * block the writer, a busy timeout so processes sharing the file wait instead of failing, and
 * every pending migration applied.
 */
export function openDatabase(file: string, options: OpenOptions = {}): BetterSqlite3.Database {
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
    healSidecars(file);
  }
  let db = new Database(file, { timeout: options.busyTimeoutMs ?? 5000 });
  let snapshot = false;
  try {
    // Check before anything writes: even switching to WAL rewrites the header of a newer file.
    try {
      db.pragma('user_version', { simple: true });
    } catch (err) {
      const copy = file === ':memory:' ? null : readOnlySnapshot(file);
      if (!copy) throw err;
      db.close();
      db = copy;
      snapshot = true;
    }
    schemaVersion(db);
    if (!snapshot) {
      db.pragma('journal_mode = WAL');
      // Without a limit the -wal file keeps the size of the largest transaction it ever held (a
      // 100,000-task enqueue or purge: tens of MB, more when such transactions pile up before a
      // checkpoint) for as long as any process has the queue open; this trims it back when reused.
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
      db.pragma(`wal_autocheckpoint = ${OTHER_CHECKPOINT_PAGES}`);
    }
    // 8 MB of page cache, not SQLite's 16: a queue's hot pages (the ends of its indexes) fit
    // many times over, and each worker process holds less memory (RESULTS.md, worker memory).
    db.pragma('cache_size = -8000');
    // The synchronous level is set per commit by Commits (commits.ts).
    db.pragma('foreign_keys = OFF');
    migrate(db);
    if (!snapshot) dropPlannerStatistics(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * The store's statements are written for the planner's estimates without statistics: the claim
 * and the finishes join a JSON list of ids to tasks and history and need one rowid lookup per
 * entry. Statistics from an ANALYZE run while the file was small (by any tool, or PRAGMA
 * optimize) can make the planner scan the whole table for each tick instead, so they are
 * dropped; `ANALYZE sqlite_schema` makes this connection forget the ones it loaded. A
 * connection that cannot write keeps them: it never ticks.
 */
function dropPlannerStatistics(db: BetterSqlite3.Database): void {
  const tables = db
    .prepare<[], string>(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'sqlite\\_stat%' ESCAPE '\\'",
    )
    .pluck()
    .all()
    .filter((t) => db.prepare(`SELECT EXISTS (SELECT 1 FROM "${t}")`).pluck().get() === 1);
  if (tables.length === 0) return; // the usual case: no write on open
  try {
    db.exec(`${tables.map((t) => `DELETE FROM "${t}";`).join(' ')} ANALYZE sqlite_schema;`);
  } catch (err) {
    if (!(err instanceof Database.SqliteError)) throw err;
  }
}

function tightenMode(file: string): void {
  try {
    const st = fs.statSync(file);
    // Only take group and other bits away: a file its owner made read-only stays read-only
    // (a fixed 0600 would make it writable again behind the owner's back).
    if (process.getuid && st.uid === process.getuid() && (st.mode & 0o077) !== 0)
      fs.chmodSync(file, st.mode & 0o700);
  } catch {
    // Not ours to change (another user's file opened read-only, say): SQLite reports real problems.
  }
}

/**
 * A connection that opened while the database file was read-only creates -wal and -shm with the
 * file's mode of that moment and leaves them behind when it closes. Once the owner makes the
 * database writable again, that read-only -shm would keep every later connection read-only, so
 * give both back the database file's owner bits, as SQLite would have created them.
 */
function healSidecars(file: string): void {
  try {
    const db = fs.statSync(file);
    const uid = process.getuid?.();
    if (uid === undefined || db.uid !== uid || (db.mode & 0o200) === 0) return;
    for (const side of [`${file}-wal`, `${file}-shm`]) {
      try {
        const st = fs.statSync(side);
        if (st.uid === uid && (st.mode & 0o200) === 0) fs.chmodSync(side, db.mode & 0o700);
      } catch {
        // absent, or not ours: nothing to heal
      }
    }
  } catch {
    // no file yet, or not ours
  }
}

/** Files larger than this are not copied into memory to be read (see readOnlySnapshot). */
const SNAPSHOT_MAX_BYTES = 256 * 1024 * 1024;

/**
 * A WAL database in a folder this process cannot write (a read-only mount, a backup on read-only
 * media, a locked-down folder) cannot be read through SQLite: it must create the -shm file next to
 * it, and this build of SQLite takes no URI filenames (`immutable=1`). When no -wal lies beside it
 * and none can be created, nobody can be writing it and its main file is the whole truth: read
 * that into memory, read-only, so `list`, `stats` and `show` still work and writes fail as
 * read-only. Null when that does not hold; the caller then reports SQLite's own error.
 */
function readOnlySnapshot(file: string): BetterSqlite3.Database | null {
  try {
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
    return null; // SQLite could create the -shm: its error has another cause
  } catch {
    // the folder is read-only: go on
  }
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size === 0 || st.size > SNAPSHOT_MAX_BYTES) return null;
    if (fs.existsSync(`${file}-wal`) && fs.statSync(`${file}-wal`).size > 0) return null;
    const bytes = fs.readFileSync(file);
    if (bytes.subarray(0, 16).toString('latin1') !== 'SQLite format 3\0') return null;
    // Header bytes 18-19 say WAL (2); a database in memory cannot be opened in WAL mode.
    if (bytes[18] === 2) bytes[18] = 1;
    if (bytes[19] === 2) bytes[19] = 1;
    return new Database(bytes, { readonly: true });
  } catch {
    return null;
  }
}

/**
 * Throws SQLite's error unless this connection can write. SQLite opens a file it may not write
 * read-only without a word, and such a connection stays read-only for good, even after the file
 * is made writable; `BEGIN IMMEDIATE` alone does not tell (it succeeds), changing a row does.
 * The change is rolled back: nothing reaches the file. Waits out another writer like any write.
 */
export function probeWritable(db: BetterSqlite3.Database): void {
  try {
    db.exec('BEGIN IMMEDIATE');
    db.prepare('UPDATE settings SET paused = paused WHERE id = 1').run();
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
  }
}
