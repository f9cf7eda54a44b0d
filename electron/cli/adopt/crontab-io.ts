/**
 * Reading and installing the crontab `adopt` works on: the user's own (`crontab -l`,
 * `crontab -`) or a file (`--file`, e.g. /etc/cron.d/jobs), always as exact bytes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type Source = { kind: 'crontab' } | { kind: 'file'; path: string; userField: boolean };

/** /etc/crontab and /etc/cron.d/* have a user field after the time fields. */
export function hasUserField(file: string): boolean {
  const abs = path.resolve(file);
  return abs === '/etc/crontab' || path.dirname(abs) === '/etc/cron.d';
}

/** The crontab's bytes (kept as they are for the backup; read as UTF-8 for the plan). */
export function readSource(source: Source): Buffer {
  if (source.kind === 'file') return fs.readFileSync(source.path);
  const r = spawnSync('crontab', ['-l']);
  if (r.error) throw new Error(`cannot run crontab: ${r.error.message} (is cron installed?)`);
  if (r.status !== 0) {
    const err = r.stderr.toString();
    if (/no crontab for/i.test(err)) return Buffer.alloc(0);
    throw new Error(`crontab -l failed: ${err.trim() || `exit code ${r.status}`}`);
  }
  return r.stdout;
}

export function installSource(source: Source, text: string | Buffer): void {
  if (source.kind === 'file') {
    // Aside and renamed: cron never reads half a file.
    const tmp = `${source.path}.semaforo-${process.pid}`;
    const mode = fs.statSync(source.path).mode & 0o7777;
    fs.writeFileSync(tmp, text, { mode });
    fs.renameSync(tmp, source.path);
    return;
  }
  // None before adopt: remove it again, so `crontab -l` says so as it did.
  const r =
    text.length === 0
      ? spawnSync('crontab', ['-r'], { encoding: 'utf8' })
      : spawnSync('crontab', ['-'], { input: text, encoding: 'utf8' });
  if (r.error) throw new Error(`cannot run crontab: ${r.error.message}`);
  if (r.status !== 0)
    throw new Error(`crontab - refused the new crontab: ${r.stderr.trim() || `exit code ${r.status}`}`);
}
