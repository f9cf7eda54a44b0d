/**
 * What the storage-fault tests share: which faults this machine can inject (tmpfs and remount
 * need root on Linux, a file-size limit needs prlimit, permission bits need a non-root user),
 * real `semaforo` processes run as a user would (killed, and mounts undone, after each test),
 * and reading the queue file and a worker's progress from outside.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterEach } from 'vitest';
import { BIN } from '../cli/cli-helpers.ts';
import { tempDir } from '../helpers.ts';

const LINUX = process.platform === 'linux';
const ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

/** Why a tmpfs cannot be mounted here, or null when it can. */
function tmpfsUnavailable(): string | null {
  if (!LINUX) return 'tmpfs is Linux only';
  if (!ROOT) return 'mounting a tmpfs needs root';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'semaforo-mount-probe-'));
  try {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { encoding: 'utf8' });
    if (r.status !== 0) return `mount -t tmpfs failed: ${(r.stderr || String(r.error)).trim()}`;
    spawnSync('umount', [dir]);
    return null;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface As {
  uid?: number;
  gid?: number;
}

/** Who the chmod faults run as: root ignores permission bits, so then `nobody`, if it can. */
function chmodActor(): { as: As; skip: string | null } {
  if (process.platform === 'win32') return { as: {}, skip: 'no POSIX permission bits' };
  if (!ROOT) return { as: {}, skip: null };
  const as = { uid: NOBODY, gid: NOBODY };
  const r = spawnSync(process.execPath, [BIN, '--version'], { ...as, encoding: 'utf8' });
  return r.status === 0
    ? { as, skip: null }
    : { as, skip: `root ignores permission bits, and user nobody cannot run ${BIN} here` };
}

export const NO_TMPFS = tmpfsUnavailable();
export const NO_PRLIMIT = !LINUX
  ? 'RLIMIT_FSIZE through prlimit(1) is Linux only'
  : spawnSync('prlimit', ['--version']).status === 0
    ? null
    : 'no prlimit(1) (util-linux) to set a file-size limit';
export const ACTOR = chmodActor();
for (const [what, why] of [
  ['disk full on a tmpfs', NO_TMPFS],
  ['a read-only remount', NO_TMPFS],
  ['disk full by file-size limit', NO_PRLIMIT],
  ['read-only file and folder', ACTOR.skip],
] as const) {
  if (why) console.log(`skipped: ${what}: ${why}`);
}

const mounts: string[] = [];
const procs = new Set<ChildProcess>();

afterEach(() => {
  for (const c of procs) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  procs.clear();
  // Lazy: a child just killed may still hold a file there.
  for (const m of mounts.splice(0)) spawnSync('umount', ['-l', m]);
});

export function mountTmpfs(size: string): string {
  const dir = path.join(tempDir(), 'disk');
  fs.mkdirSync(dir);
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`mount failed: ${r.stderr}`);
  mounts.push(dir);
  return dir;
}

/** A folder owned by `as`, inside a temp dir it can reach. */
export function folderOf(as: As): string {
  const top = tempDir();
  const dir = path.join(top, 'data');
  fs.mkdirSync(dir, { mode: 0o700 });
  if (as.uid !== undefined) {
    fs.chmodSync(top, 0o755);
    fs.chownSync(dir, as.uid, as.gid ?? as.uid);
  }
  return dir;
}

interface Proc {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  /** stderr lines, each with when it arrived */
  lines: { at: number; text: string }[];
  closed: Promise<void>;
}

/** `semaforo --db DB ARGS` as a user runs it, optionally as another user or under a wrapper. */
export function start(args: readonly string[], o: { db: string; as?: As; prefix?: string[] }): Proc {
  const argv = [...(o.prefix ?? []), process.execPath, BIN, '--db', o.db, ...args];
  const child = spawn(argv[0]!, argv.slice(1), {
    env: { ...process.env, SEMAFORO_HOME: path.dirname(o.db) },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...o.as,
  });
  procs.add(child);
  const p: Proc = {
    child,
    stdout: '',
    stderr: '',
    lines: [],
    closed: new Promise((resolve) => child.once('close', () => resolve())),
  };
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => (p.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    p.stderr += d.toString();
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    for (const text of parts) p.lines.push({ at: Date.now(), text });
  });
  return p;
}

export async function run(
  args: readonly string[],
  o: { db: string; as?: As; prefix?: string[]; stdin?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = start(args, o);
  p.child.stdin!.end(o.stdin ?? '');
  await p.closed;
  return { code: p.child.exitCode, stdout: p.stdout, stderr: p.stderr };
}

export function ok<T = unknown>(r: { code: number | null; stdout: string; stderr: string }): T {
  if (r.code !== 0) throw new Error(`semaforo exited ${r.code}: ${r.stderr}`);
  return (r.stdout.startsWith('{') || r.stdout.startsWith('[') ? JSON.parse(r.stdout) : r.stdout) as T;
}

export async function exitOf(p: Proc): Promise<number | null> {
  await p.closed;
  return p.child.exitCode;
}

export const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

interface Row {
  name: string;
  status: string;
  attempts: number;
  result: string | null;
}

/** The tasks as the file holds them; only while a worker holds it open, or once all are done. */
export function rows(db: string): Row[] {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return d.prepare<[], Row>('SELECT name, status, attempts, result FROM tasks ORDER BY id').all();
  } finally {
    d.close();
  }
}

export function integrity(db: string): string {
  const d = new Database(db, { fileMustExist: true });
  try {
    return d.pragma('integrity_check', { simple: true }) as string;
  } finally {
    d.close();
  }
}

/** Names the tasks' commands appended to the run log, one per start. */
export function started(log: string): string[] {
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
}

/** A shell task that logs its start, waits for `gate` to exist, and prints `done-NAME`. */
export function gatedTask(name: string, log: string, gate: string): string {
  const script = `echo ${name} >> '${log}'; while [ ! -e '${gate}' ]; do sleep 0.05; done; echo done-${name}`;
  return JSON.stringify({ kind: 'shell', name, payload: { command: 'sh', args: ['-c', script] } });
}

/** CPU time (user + system) a process has used, in ms; null where /proc does not tell. */
export function cpuMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in USER_HZ (100 on Linux)
  } catch {
    return null;
  }
}

/** The highest N in the lines `pattern` (with one capture group) matches, and when it came. */
export function lastCount(p: Proc, pattern: RegExp): { n: number; at: number } {
  let best = { n: 0, at: 0 };
  for (const l of p.lines) {
    const m = pattern.exec(l.text);
    if (m && Number(m[1]) > best.n) best = { n: Number(m[1]), at: l.at };
  }
  return best;
}
