/**
 * Damage inside the file (a bad disk, a copy taken mid-write, bytes overwritten by another
 * program) shows only when a damaged page is read: a command that reads other pages succeeds, and
 * writes go on into a file that may lose them. `PRAGMA quick_check` reads every page once (the
 * b-tree structure, not the index contents: linear in the file's size, tens of ms for a few MB)
 * and says so first.
 */
import fs from 'node:fs';
import type { Database } from 'better-sqlite3';
import { StorageError } from '../../errors.ts';

/** Files up to this size are checked on every open (about 0.1-0.3 s at the limit); larger ones by dispatchers only. */
export const OPEN_CHECK_MAX_BYTES = 64 * 1024 * 1024;

/** The first problem quick_check finds, or null when the file is sound. */
export function damageOf(db: Database): string | null {
  try {
    const rows = db.pragma('quick_check(1)') as { quick_check: string }[];
    const first = rows[0]?.quick_check ?? 'ok';
    if (first === 'ok') return null;
    return first.replace(/^\*\*\* in database \w+ \*\*\*\n/, '').replace(/\s*\n\s*/g, '; ');
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export function damagedError(file: string, problem: string): StorageError {
  return new StorageError(
    `the queue file ${file} is damaged (${problem.slice(0, 200)}): nothing more is written to it; ` +
      `restore it from a backup, or salvage it with \`sqlite3 ${file} .recover\``,
    'SQLITE_CORRUPT',
    'damaged',
    file,
  );
}

/** Whether this file is small enough to be checked whenever it is opened. */
export function checkOnOpen(file: string): boolean {
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  return size <= OPEN_CHECK_MAX_BYTES;
}
