/**
 * The `sqlite-backup` kind: a consistent copy of a live SQLite file through SQLite's backup API
 * (a plain file copy of a database being written can be torn), named by UTC time, with the
 * oldest copies rotated away.
 */
import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { JsonValue } from '../../../shared/domain.ts';
import { PermanentError } from '../errors.ts';
import { LazyPayload } from './payload.ts';
import type { SqliteBackupPayload } from './payload-schemas.ts';
import type { Handler, HandlerContext } from './registry.ts';

export type { SqliteBackupPayload };

export const DEFAULT_KEEP = 7;
/** pages copied per step (4 MiB at the default page size): small enough for progress, large enough to be quick */
const STEP_PAGES = 1024;
const ALL_PAGES = 0x7fffffff;

/** `20260102T030405678Z` for 2026-01-02 03:04:05.678 UTC. */
export function backupStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, '');
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches exactly the names this kind writes for `base`, so rotation never touches other files. */
export function backupNamePattern(base: string): RegExp {
  return new RegExp(`^${escapeRe(base)}-\\d{8}T\\d{9}Z\\.db$`);
}

/** A name in `dir` no backup uses yet (two backups in one millisecond get consecutive stamps). */
function freshName(dir: string, base: string, now: number): string {
  for (let t = now; ; t++) {
    const name = `${base}-${backupStamp(t)}.db`;
    const full = path.join(dir, name);
    if (!fs.existsSync(full) && !fs.existsSync(`${full}.partial`)) return name;
  }
}

const PERMANENT_SQLITE = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_CANTOPEN', 'SQLITE_PERM']);

function backupFailure(err: unknown, source: string): Error {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (typeof code === 'string' && PERMANENT_SQLITE.has(code))
    return new PermanentError(`cannot back up "${source}": ${message} (${code})`);
  return new Error(`backup of "${source}" failed: ${message}`);
}

/** Deletes the oldest copies of `base` in `dir` beyond `keep`, never the one just written. */
function rotate(dir: string, base: string, keep: number, justWritten: string): number {
  const pattern = backupNamePattern(base);
  // The stamp sorts as text in time order.
  const others = fs
    .readdirSync(dir)
    .filter((n) => pattern.test(n) && n !== justWritten)
    .sort();
  const old = others.slice(0, Math.max(0, others.length - (keep - 1)));
  for (const name of old) {
    const full = path.join(dir, name);
    fs.rmSync(full, { force: true });
    // A copy someone opened may have grown its own WAL files; they are worthless without it.
    fs.rmSync(`${full}-wal`, { force: true });
    fs.rmSync(`${full}-shm`, { force: true });
  }
  return old.length;
}

async function backup(p: SqliteBackupPayload, ctx: HandlerContext): Promise<JsonValue> {
  ctx.signal.throwIfAborted();
  const source = path.resolve(p.source);
  const st = fs.statSync(source, { throwIfNoEntry: false });
  if (!st) throw new PermanentError(`source database "${p.source}" does not exist`);
  if (!st.isFile()) throw new PermanentError(`source "${p.source}" is not a file`);
  const destDir = path.resolve(p.destDir);
  fs.mkdirSync(destDir, { recursive: true, mode: 0o700 });
  const base = path.basename(source, path.extname(source)) || path.basename(source);
  const name = freshName(destDir, base, Date.now());
  const dest = path.join(destDir, name);
  // Written under another name until complete, so a half-made copy never looks like a backup.
  const partial = `${dest}.partial`;
  // The copy holds the user's data: owner-only from its first byte, like the queue file.
  fs.closeSync(fs.openSync(partial, 'wx', 0o600));

  let db: BetterSqlite3.Database | null = null;
  try {
    // Loaded when a backup runs: every other process that registers this kind never needs it.
    const { default: Database } = await import('better-sqlite3');
    db = new Database(source, { readonly: true, fileMustExist: true });
    let lastRemaining = Number.POSITIVE_INFINITY;
    let allAtOnce = false;
    // A restart would move the bar backwards; the user only needs to see it move on.
    let shown = 0;
    await db.backup(partial, {
      progress: ({ totalPages, remainingPages }) => {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        if (totalPages > 0) {
          shown = Math.max(shown, (totalPages - remainingPages) / totalPages);
          ctx.progress(shown);
        }
        // Another connection wrote meanwhile and SQLite restarted the copy. A busy writer could
        // keep that up forever, so copy the rest in one step, inside one read transaction.
        if (remainingPages >= lastRemaining) allAtOnce = true;
        lastRemaining = remainingPages;
        return allAtOnce ? ALL_PAGES : STEP_PAGES;
      },
    });
    db.close();
    db = null;
    fs.renameSync(partial, dest);
  } catch (err) {
    db?.close();
    fs.rmSync(partial, { force: true });
    if (ctx.signal.aborted) throw ctx.signal.reason;
    throw backupFailure(err, p.source);
  }
  const deleted = rotate(destDir, base, p.keep ?? DEFAULT_KEEP, name);
  return { path: dest, size: fs.statSync(dest).size, deleted };
}

export const sqliteBackupHandler: Handler<SqliteBackupPayload> = {
  kind: 'sqlite-backup',
  description: `copy a live SQLite {source} into {destDir} with the backup API, keeping the newest {keep} (default ${DEFAULT_KEEP})`,
  payload: new LazyPayload(async () => (await import('./payload-schemas.ts')).backupPayload),
  run: backup,
};
