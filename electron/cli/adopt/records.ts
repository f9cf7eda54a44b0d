/**
 * What `adopt --apply` leaves for `adopt --undo`: the crontab as it was (its exact bytes), the
 * hash of the one installed, and the schedules created; kept in an `adopt` folder next to the
 * queue file, one pair of files per apply.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Source } from './crontab-io.ts';

export interface AdoptRecord {
  version: 1;
  source: Source;
  /** file name of the backup, in the same folder */
  backup: string;
  /** sha256 of the crontab adopt installed: undo refuses to overwrite later edits */
  installedSha256: string;
  schedules: string[];
  appliedAt: string;
}

/** `folder`: the queue's local folder (CliContext.localFolder). */
export const recordsDir = (folder: string) => path.join(folder, 'adopt');

export function saveRecord(
  dir: string,
  original: Buffer,
  record: Omit<AdoptRecord, 'backup' | 'version'>,
): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stamp = record.appliedAt.replace(/[:.]/g, '-');
  const backup = `${stamp}.crontab`;
  fs.writeFileSync(path.join(dir, backup), original, { mode: 0o600 });
  const file = path.join(dir, `${stamp}.json`);
  fs.writeFileSync(file, JSON.stringify({ version: 1, ...record, backup }, null, 2) + '\n', { mode: 0o600 });
  return file;
}

/** The latest apply not undone yet, or null. */
export function latestRecord(dir: string): { file: string; record: AdoptRecord; original: Buffer } | null {
  let names: string[];
  try {
    names = fs
      .readdirSync(dir)
      .filter((n) => /^[\dT-]+Z\.json$/.test(n))
      .sort();
  } catch {
    return null;
  }
  const name = names.at(-1);
  if (!name) return null;
  const file = path.join(dir, name);
  const record = JSON.parse(fs.readFileSync(file, 'utf8')) as AdoptRecord;
  return { file, record, original: fs.readFileSync(path.join(dir, record.backup)) };
}

/** Marks a record undone: kept for the curious, no longer the latest. */
export function retireRecord(file: string): void {
  fs.renameSync(file, file.replace(/\.json$/, '.undone'));
}
