/**
 * Notices that the queue's files were deleted or replaced under a running process.
 *
 * SQLite keeps reading and writing the inode it opened: once `queue.db` (or its -wal or -shm) is
 * unlinked, every task this process finishes, claims or enqueues is written into a file nobody
 * can see, and vanishes when the process ends; once the path holds another file (a restored
 * backup, a new queue another process created), this process and that file's users no longer
 * share limits or leases. Nothing fails, so nothing says so. The guard compares, now and then,
 * what each path names now with what it named when the database was opened (device and inode;
 * `stat` only: opening and closing our own descriptor on the file would drop SQLite's POSIX locks).
 *
 * When the database file itself is gone or replaced, its -wal and -shm still lie at their paths,
 * and SQLite will not remove them when this process closes the lost file (it never deletes the
 * WAL of an unlinked database). The next process to open the file now at that path would take
 * them for its own: a restored backup silently comes back as the old queue's last state. So the
 * guard removes them, once it has checked that they are still the ones this process opened.
 *
 * `judgeFiles`, `orphanedSidecars` and `lostFileMessage` are the pure decision; `fileIdOf` and
 * `DbFileGuard` do the file-system look-ups and the removal.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface FileId {
  dev: bigint;
  ino: bigint;
}

/** What a path names now: a file, nothing, or unknown (a look-up error that proves nothing). */
export type Seen = FileId | 'missing' | 'unknown';

export interface WatchedFile {
  path: string;
  /** what the path named when the database was opened */
  opened: FileId;
}

export interface LostFile {
  path: string;
  change: 'deleted' | 'replaced';
}

/** The first watched file whose path no longer names what was opened, or null. */
export function judgeFiles(watched: readonly WatchedFile[], seen: readonly Seen[]): LostFile | null {
  for (const [i, w] of watched.entries()) {
    const now = seen[i];
    if (now === undefined || now === 'unknown') continue;
    if (now === 'missing') return { path: w.path, change: 'deleted' };
    if (now.dev !== w.opened.dev || now.ino !== w.opened.ino) return { path: w.path, change: 'replaced' };
  }
  return null;
}

/**
 * The sidecars to remove after `lost`: only when the database file itself was lost, and only
 * those whose path still names what this process opened (never another file's).
 */
export function orphanedSidecars(
  dbFile: string,
  watched: readonly WatchedFile[],
  seen: readonly Seen[],
  lost: LostFile,
): string[] {
  if (lost.path !== dbFile) return [];
  return watched
    .filter((w, i) => {
      const now = seen[i];
      return (
        w.path !== dbFile && typeof now === 'object' && now.dev === w.opened.dev && now.ino === w.opened.ino
      );
    })
    .map((w) => w.path);
}

/** One line for the user: what happened to which file, and what this process did about it. */
export function lostFileMessage(dbFile: string, lost: LostFile, removed: readonly string[] = []): string {
  const which =
    lost.path === dbFile
      ? `the queue database ${dbFile}`
      : `${path.basename(lost.path)}, the ${lost.path.endsWith('-wal') ? 'write-ahead log' : 'shared-memory index'} of the queue database ${dbFile},`;
  const what =
    lost.change === 'deleted'
      ? 'was deleted while this process had it open'
      : 'was replaced by another file while this process had it open';
  const cleared = removed.length
    ? `; removed its ${removed.map((p) => p.slice(dbFile.length)).join(' and ')}, which belong${removed.length === 1 ? 's' : ''} to the lost file`
    : '';
  return (
    `${which} ${what}; stopped dispatching, since whatever it wrote from now on would be lost${cleared} ` +
    '(restore the file, or restart to open what is there now)'
  );
}

/** What `p` names now. Never throws. */
export function fileIdOf(p: string): Seen {
  try {
    const st = fs.statSync(p, { bigint: true });
    return { dev: st.dev, ino: st.ino };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unknown';
  }
}

/**
 * The database file and the -wal and -shm beside it, as they are now: call right after opening,
 * while this process holds them open (SQLite keeps both sidecars for as long as a connection is
 * open in WAL mode, and deletes them only when the last one closes).
 */
export function openedFiles(dbFile: string): WatchedFile[] {
  const out: WatchedFile[] = [];
  for (const p of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) {
    const id = fileIdOf(p);
    if (typeof id === 'object') out.push({ path: p, opened: id });
  }
  return out;
}

/** Checks the watched files every `intervalMs` until stopped; reports the first loss once. */
export class DbFileGuard {
  private readonly dbFile: string;
  private readonly watched: WatchedFile[];
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(dbFile: string, watched: WatchedFile[]) {
    this.dbFile = dbFile;
    this.watched = watched;
  }

  /**
   * The loss, described, or null while every path still names what was opened. On a loss of the
   * database file, removes the sidecars that belong to it (see the top of this file).
   */
  check(): string | null {
    const seen = this.watched.map((w) => fileIdOf(w.path));
    const lost = judgeFiles(this.watched, seen);
    if (!lost) return null;
    const removed = orphanedSidecars(this.dbFile, this.watched, seen, lost).filter((p) => {
      try {
        fs.unlinkSync(p);
        return true;
      } catch {
        return false; // gone meanwhile, or not ours to remove: nothing to warn the next one about
      }
    });
    return lostFileMessage(this.dbFile, lost, removed);
  }

  start(intervalMs: number, onLost: (message: string) => void): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      const message = this.check();
      if (message === null) return;
      this.stop();
      onLost(message);
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
