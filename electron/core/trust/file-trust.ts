/**
 * Files whose content runs as this user (the queue file: its tasks run here; a handler module;
 * the dashboard token) are refused when another user could have written them, as ssh refuses
 * keys: the file, and the folder holding it, must be owned by this user (a folder may also be
 * root's) and not writable by group or others. A folder writable by others is accepted only
 * with the sticky bit (/tmp): there nobody else can replace a file of ours.
 *
 * POSIX only: on Windows, files in the user's profile are private by ACL and modes mean little.
 */
import fs from 'node:fs';
import path from 'node:path';

export class UntrustedFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UntrustedFileError';
  }
}

const checks = process.platform !== 'win32' && typeof process.geteuid === 'function';

function problem(st: fs.Stats, folder: boolean): string | null {
  const me = process.geteuid!();
  if (st.uid !== me && !(folder && st.uid === 0)) return `is owned by another user (uid ${st.uid})`;
  const writable = st.mode & 0o022;
  if (writable === 0) return null;
  if (folder && (st.mode & 0o1000) !== 0) return null; // sticky: others cannot replace our files
  return `is writable by ${st.mode & 0o002 ? 'others' : 'its group'} (mode ${(st.mode & 0o7777).toString(8)})`;
}

/**
 * Why `file` (when it exists) or the folder that holds it must not be trusted, or null.
 * `what` names it for the message ("queue file", "handler module").
 */
export function distrust(file: string, what: string): string | null {
  if (!checks) return null;
  const full = path.resolve(file);
  for (const [p, folder] of [
    [path.dirname(full), true],
    [full, false],
  ] as const) {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    const why = problem(st, folder || st.isDirectory());
    if (why === null) continue;
    const fix = st.uid === process.geteuid!() ? `chmod go-w ${p}` : `use a folder of your own`;
    const label = p === full ? `the ${what} ${p}` : `the folder ${p} holding the ${what}`;
    return `refusing ${label}: it ${why}, so another user could make it run code as you (fix: ${fix})`;
  }
  return null;
}

/** Throws UntrustedFileError when `file` or its folder could have been written by another user. */
export function assertTrusted(file: string, what: string): void {
  const why = distrust(file, what);
  if (why !== null) throw new UntrustedFileError(why);
}
