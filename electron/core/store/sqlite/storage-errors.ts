/**
 * What a storage failure means to the user, in one line that names the file. SQLite's own words
 * ("database or disk is full", "disk I/O error", "attempt to write a readonly database", "unable
 * to open database file") name neither the file nor the condition to fix, and an I/O error is
 * often a full disk in disguise (SQLite reports a failed -shm or -wal extension as IOERR).
 *
 * `classifyStorageError` is the pure decision, from the error code and a few file-system facts;
 * `storageFacts` gathers those facts; `toStorageError` does both for a thrown value.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StorageError, type StorageCondition } from '../../errors.ts';

/** Whether this process may write a path, as the kernel answers access(2). */
type Access = 'yes' | 'no' | 'read-only-fs' | 'missing' | 'unknown';

export interface StorageFacts {
  /** bytes free to this user on the file system holding the database; null if unknown */
  freeBytes: number | null;
  file: Access;
  folder: Access;
  /** the -shm file (SQLite cannot write through a read-only one, whatever the database's mode) */
  shm: Access;
  /** false when the file exists but this process may not even read it (absent: unknown) */
  readable?: boolean;
}

/** With less free than this, an I/O error while writing is taken for a full disk. */
const NEARLY_FULL_BYTES = 1024 * 1024;

const FULL_ERRNOS = new Set(['ENOSPC', 'EDQUOT']);

/** The condition and the one line to show, or null when `code` is no storage failure. */
export function classifyStorageError(
  code: string,
  file: string,
  facts: StorageFacts,
  original = '',
): { condition: StorageCondition; message: string } | null {
  const full = {
    condition: 'full' as const,
    message: `cannot write to the queue database ${file}: the disk is full`,
  };
  if (code === 'SQLITE_FULL' || FULL_ERRNOS.has(code)) return full;
  if (code === 'SQLITE_READONLY_DBMOVED') {
    return { condition: 'moved', message: `the queue database ${file} was moved or deleted while open` };
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') {
    return {
      condition: 'read-only',
      message: `cannot write to the queue database ${file}: ${readOnlyReason(code, file, facts)}`,
    };
  }
  if (code.startsWith('SQLITE_IOERR')) {
    const nearlyFull = facts.freeBytes !== null && facts.freeBytes < NEARLY_FULL_BYTES;
    if (nearlyFull) return full;
    const verb = /READ/.test(code)
      ? 'cannot read'
      : /LOCK|ACCESS/.test(code)
        ? 'cannot use'
        : 'cannot write to';
    return { condition: 'io', message: `${verb} the queue database ${file}: disk I/O error (${code})` };
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'EACCES' || code === 'EPERM') {
    const folder = path.dirname(file);
    let why: string;
    // The folder is created when missing: still missing means it could not be.
    if (facts.folder === 'missing') why = `its folder ${folder} does not exist and cannot be created`;
    // Before the folder: an unreadable file in a read-only folder is the file's fault.
    else if (facts.readable === false) why = 'permission denied: this user may not read it';
    else if (facts.file === 'missing' && (facts.folder === 'no' || facts.folder === 'read-only-fs'))
      why = `it does not exist and its folder ${folder} is read-only`;
    else if (facts.folder === 'read-only-fs' || facts.file === 'read-only-fs')
      why = `the file system holding it is mounted read-only, and SQLite must create ${path.basename(file)}-shm next to it to read it`;
    else if (facts.folder === 'no')
      why = `its folder ${folder} is read-only, and SQLite must create ${path.basename(file)}-shm there to read it`;
    else if (facts.file === 'no') why = 'permission denied';
    else why = original || 'unable to open database file';
    return { condition: 'cannot-open', message: `cannot open the queue database ${file}: ${why}` };
  }
  return null;
}

function readOnlyReason(code: string, file: string, facts: StorageFacts): string {
  if (facts.file === 'read-only-fs' || facts.folder === 'read-only-fs')
    return 'the file system holding it is mounted read-only';
  if (facts.file === 'no') return 'the file is read-only';
  if (code === 'SQLITE_READONLY_DIRECTORY' || facts.folder === 'no')
    return `its folder ${path.dirname(file)} is read-only`;
  if (facts.shm === 'no') return `${path.basename(file)}-shm next to it is read-only`;
  return `it is read-only (${code})`;
}

/** The facts `classifyStorageError` needs, looked up now. Never throws. */
function storageFacts(file: string): StorageFacts {
  let freeBytes: number | null = null;
  try {
    const s = fs.statfsSync(path.dirname(file));
    freeBytes = s.bavail * s.bsize;
  } catch {
    // unknown: an I/O error is then reported as such
  }
  return {
    freeBytes,
    file: access(file),
    folder: access(path.dirname(file)),
    shm: access(`${file}-shm`),
    readable: readable(file),
  };
}

function readable(p: string): boolean | undefined {
  try {
    fs.accessSync(p, fs.constants.R_OK);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? false : undefined;
  }
}

function access(p: string): Access {
  try {
    fs.accessSync(p, fs.constants.W_OK);
    return 'yes';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    if (code === 'EROFS') return 'read-only-fs';
    if (code === 'EACCES' || code === 'EPERM') return 'no';
    return 'unknown';
  }
}

/** `err` as a StorageError when it is one (or a storage failure SQLite reported); else null. */
export function toStorageError(err: unknown, file: string): StorageError | null {
  if (err instanceof StorageError) return err;
  if (!(err instanceof Error) || file === ':memory:') return null;
  const code = (err as NodeJS.ErrnoException).code;
  if (typeof code !== 'string') return null;
  const known =
    code.startsWith('SQLITE_FULL') ||
    code.startsWith('SQLITE_READONLY') ||
    code.startsWith('SQLITE_IOERR') ||
    code === 'SQLITE_CANTOPEN' ||
    FULL_ERRNOS.has(code) ||
    ['EROFS', 'EACCES', 'EPERM'].includes(code);
  if (!known) return null;
  const c = classifyStorageError(code, file, storageFacts(file), err.message);
  return c ? new StorageError(c.message, code, c.condition, file) : null;
}
