/**
 * Storage faults, injected for real under real `semaforo` processes, and what a user relies on:
 *
 * - Disk full: a tmpfs filled to the last byte (where this process may mount one: root), and
 *   otherwise, or as well, a file-size limit on the processes (RLIMIT_FSIZE via prlimit), which
 *   fails their writes the same way without root. An enqueue is refused in one line naming the file
 *   and writes nothing of its batch; a worker says so once, retries about once a second without
 *   spinning, keeps the results it could not write, and goes on by itself once writes work again:
 *   every task done with its result, the file whole.
 * - Read-only: the file system remounted read-only (root, tmpfs), or the file or its folder made
 *   read-only (chmod, as a user permission bits bind: this one, or `nobody` when running as root).
 *   Enqueue is refused in one line saying which; list and stats still read; a worker started
 *   meanwhile waits without exiting (a supervisor would restart an exiting one in a loop) and
 *   dispatches once the file is writable again.
 * - The file deleted or replaced under a running worker (SQLite would go on writing into the lost
 *   inode): the worker says so, claims nothing more, exits 1, and leaves whatever file is at the
 *   path now, and its users, alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Stats, Task } from '../../shared/domain.ts';
import { BIN } from '../cli/cli-helpers.ts';
import { tempDir, waitFor } from '../helpers.ts';

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

interface As {
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

const NO_TMPFS = tmpfsUnavailable();
const NO_PRLIMIT = !LINUX
  ? 'RLIMIT_FSIZE through prlimit(1) is Linux only'
  : spawnSync('prlimit', ['--version']).status === 0
    ? null
    : 'no prlimit(1) (util-linux) to set a file-size limit';
const ACTOR = chmodActor();
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

function mountTmpfs(size: string): string {
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
function folderOf(as: As): string {
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
function start(args: readonly string[], o: { db: string; as?: As; prefix?: string[] }): Proc {
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

async function run(
  args: readonly string[],
  o: { db: string; as?: As; prefix?: string[]; stdin?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = start(args, o);
  p.child.stdin!.end(o.stdin ?? '');
  await p.closed;
  return { code: p.child.exitCode, stdout: p.stdout, stderr: p.stderr };
}

function ok<T = unknown>(r: { code: number | null; stdout: string; stderr: string }): T {
  if (r.code !== 0) throw new Error(`semaforo exited ${r.code}: ${r.stderr}`);
  return (r.stdout.startsWith('{') || r.stdout.startsWith('[') ? JSON.parse(r.stdout) : r.stdout) as T;
}

async function exitOf(p: Proc): Promise<number | null> {
  await p.closed;
  return p.child.exitCode;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

interface Row {
  name: string;
  status: string;
  attempts: number;
  result: string | null;
}

/** The tasks as the file holds them; only while a worker holds it open, or once all are done. */
function rows(db: string): Row[] {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return d.prepare<[], Row>('SELECT name, status, attempts, result FROM tasks ORDER BY id').all();
  } finally {
    d.close();
  }
}

function integrity(db: string): string {
  const d = new Database(db, { fileMustExist: true });
  try {
    return d.pragma('integrity_check', { simple: true }) as string;
  } finally {
    d.close();
  }
}

/** Names the tasks' commands appended to the run log, one per start. */
function started(log: string): string[] {
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
}

/** A shell task that logs its start, waits for `gate` to exist, and prints `done-NAME`. */
function gatedTask(name: string, log: string, gate: string): string {
  const script = `echo ${name} >> '${log}'; while [ ! -e '${gate}' ]; do sleep 0.05; done; echo done-${name}`;
  return JSON.stringify({ kind: 'shell', name, payload: { command: 'sh', args: ['-c', script] } });
}

/** CPU time (user + system) a process has used, in ms; null where /proc does not tell. */
function cpuMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in USER_HZ (100 on Linux)
  } catch {
    return null;
  }
}

/** The highest N in the lines `pattern` (with one capture group) matches, and when it came. */
function lastCount(p: Proc, pattern: RegExp): { n: number; at: number } {
  let best = { n: 0, at: 0 };
  for (const l of p.lines) {
    const m = pattern.exec(l.text);
    if (m && Number(m[1]) > best.n) best = { n: Number(m[1]), at: l.at };
  }
  return best;
}

interface DiskFull {
  folder(): string;
  /** makes the worker's writes fail as on a full disk */
  fill(workerPid: number): void;
  free(workerPid: number): void;
  /** what a CLI command is run under while the disk is full (the tmpfs is full for everyone) */
  cliPrefix: string[];
  /** the condition the user is told, as a pattern */
  condition: string;
}

function tmpfsFull(): DiskFull {
  let filler = '';
  return {
    folder: () => {
      const dir = mountTmpfs('8m');
      filler = path.join(dir, 'filler');
      return dir;
    },
    fill: () => {
      const fd = fs.openSync(filler, 'w');
      try {
        // Big writes first, then ever smaller ones down to a byte: not a byte is left.
        for (let size = 1 << 20; size >= 1; size >>= 2) {
          const chunk = Buffer.alloc(size);
          try {
            for (;;) fs.writeSync(fd, chunk);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          }
        }
      } finally {
        fs.closeSync(fd);
      }
    },
    free: () => fs.unlinkSync(filler),
    cliPrefix: [],
    condition: 'the disk is full',
  };
}

/**
 * RLIMIT_FSIZE: a write past 4096 bytes fails with EFBIG (Node ignores SIGXFSZ), the database
 * and its WAL are larger, so every commit fails as on a full disk. SQLite reports EFBIG as an
 * I/O error, so the user reads "disk I/O error" (or "the disk is full" when the disk nearly is).
 */
function rlimitFull(): DiskFull {
  const LIMIT = 4096;
  let saved = '';
  const prlimit = (pid: number, value: string) => {
    const r = spawnSync('prlimit', ['--pid', String(pid), `--fsize=${value}`], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`prlimit failed: ${r.stderr}`);
  };
  return {
    folder: () => tempDir(),
    fill: (pid) => {
      const r = spawnSync(
        'prlimit',
        ['--pid', String(pid), '--fsize', '--raw', '--noheadings', '--output', 'SOFT,HARD'],
        {
          encoding: 'utf8',
        },
      );
      saved = r.stdout.trim().split(/\s+/).join(':');
      prlimit(pid, `${LIMIT}:`);
    },
    free: (pid) => prlimit(pid, saved),
    cliPrefix: ['prlimit', `--fsize=${LIMIT}:`, '--'],
    condition: '(?:disk I/O error \\(SQLITE_IOERR_WRITE\\)|the disk is full)',
  };
}

async function diskFillsUp(fault: DiskFull): Promise<void> {
  const dir = fault.folder();
  const aside = tempDir(); // the run log and the gate live on a disk that is not full
  const db = path.join(dir, 'queue.db');
  const log = path.join(aside, 'runs.log');
  const gate = path.join(aside, 'gate');
  const names = ['t1', 't2', 't3', 't4', 't5', 't6'];
  ok(await run(['enqueue', '--stdin'], { db, stdin: names.map((n) => gatedTask(n, log, gate)).join('\n') }));
  const worker = start(['-v', 'work', '-c', '2'], { db });
  const pid = worker.child.pid!;
  await waitFor(() => started(log).length === 2, 'two tasks running');

  fault.fill(pid);
  // An enqueue while the disk is full: one line naming the file, exit 1, nothing of its batch.
  const refused = await run(['enqueue', '--stdin'], {
    db,
    prefix: fault.cliPrefix,
    stdin: ['x1', 'x2', 'x3'].map((n) => gatedTask(n, log, gate)).join('\n'),
  });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(
    new RegExp(
      `^semaforo: cannot write to the queue database ${esc(db)}: ${fault.condition}; nothing was written\\n$`,
    ),
  );

  // The two running tasks end while their results cannot be written.
  fs.writeFileSync(gate, '');
  const first = await waitFor(
    () => worker.lines.find((l) => l.text.startsWith('semaforo: error: ')),
    'the worker reports that it cannot write',
  );
  expect(first.text).toMatch(
    new RegExp(
      `^semaforo: error: cannot write to the queue database ${esc(db)}: ${fault.condition}; ` +
        'the dispatcher retries every second; [12] finished result\\(s\\) are kept until then$',
    ),
  );
  const cpuAtFirst = cpuMs(pid);
  const attempt = /^semaforo: write attempt (\d+) failed: /;
  const last = await waitFor(() => {
    const c = lastCount(worker, attempt);
    return c.n >= 4 && c;
  }, 'a few retries');
  // No hot loop: about one attempt a second (plus one per task that ended meanwhile), and the
  // process mostly idle between them. A spinning worker makes thousands and burns a core.
  const windowMs = last.at - first.at;
  expect(last.n - 1).toBeLessThanOrEqual(windowMs / 1000 + 3);
  if (cpuAtFirst !== null) expect(cpuMs(pid)! - cpuAtFirst).toBeLessThan(windowMs / 2);
  expect(worker.child.exitCode).toBeNull();
  // Said once at error level, not once per attempt.
  expect(worker.lines.filter((l) => l.text.startsWith('semaforo: error: '))).toHaveLength(1);

  fault.free(pid);
  await waitFor(
    () =>
      worker.lines.some((l) =>
        /^semaforo: warning: the queue can be written again after \d+ failed/.test(l.text),
      ),
    'the worker notices it can write again',
  );
  await waitFor(
    () => rows(db).filter((r) => r.status === 'done').length === names.length,
    'every task done',
    20_000,
  );
  worker.child.kill('SIGTERM');
  expect(await exitOf(worker)).toBe(0);
  expect(worker.stderr).not.toMatch(/\n\s+at /); // no stack trace

  const all = rows(db);
  expect(all.map((r) => r.name)).toEqual(names); // the refused batch left no trace
  const runs = started(log);
  for (const r of all) {
    // Every result is the task's own, including those finished while nothing could be written.
    expect(JSON.parse(r.result!)).toMatchObject({ exitCode: 0, lastLine: `done-${r.name}` });
    expect(runs.filter((n) => n === r.name)).toHaveLength(r.attempts);
  }
  expect(integrity(db)).toBe('ok');
}

/**
 * SIGTERM while results cannot be written: the graceful path all the same (it waits its grace,
 * says which results it could not write, exits as a stopped worker does), not an end mid-stop;
 * once space is back those tasks run again and nothing is lost.
 */
async function stopWhileFull(fault: DiskFull): Promise<void> {
  const dir = fault.folder();
  const aside = tempDir();
  const db = path.join(dir, 'queue.db');
  const log = path.join(aside, 'runs.log');
  const gate = path.join(aside, 'gate');
  const names = ['t1', 't2', 't3'];
  ok(await run(['enqueue', '--stdin'], { db, stdin: names.map((n) => gatedTask(n, log, gate)).join('\n') }));
  const worker = start(['-v', 'work', '-c', '2', '--grace', '2s'], { db });
  await waitFor(() => started(log).length === 2, 'two tasks running');
  fault.fill(worker.child.pid!);
  fs.writeFileSync(gate, '');
  await waitFor(
    () => worker.lines.some((l) => l.text.startsWith('semaforo: error: cannot write')),
    'the worker reports that it cannot write',
  );
  worker.child.kill('SIGTERM');
  expect(await exitOf(worker)).toBe(0);
  expect(worker.stderr).toMatch(/SIGTERM: finishing running tasks/);
  expect(worker.stderr).toMatch(
    /stopping with 2 finished result\(s\) that could not be written: those tasks go back to the queue/,
  );
  expect(worker.stderr).not.toMatch(/process\.exit|unsettled top-level await/);
  fault.free(worker.child.pid!);
  // Another worker, once there is space again: the two run again, the third for the first time.
  const again = start(['work', '--drain'], { db, prefix: [] });
  expect(await exitOf(again)).toBe(0);
  expect(rows(db).map((r) => [r.name, r.status])).toEqual(names.map((n) => [n, 'done']));
  expect(integrity(db)).toBe('ok');
}

describe('disk full', () => {
  it.skipIf(NO_TMPFS !== null)(
    'on a tmpfs filled to the last byte: enqueue refused and writes nothing; the worker keeps its results, does not spin, and goes on once space is freed',
    () => diskFillsUp(tmpfsFull()),
    40_000,
  );

  it.skipIf(NO_PRLIMIT !== null)(
    'by a file-size limit (RLIMIT_FSIZE) on the processes: the same, without root',
    () => diskFillsUp(rlimitFull()),
    40_000,
  );

  it.skipIf(NO_TMPFS !== null)(
    'SIGTERM on a full tmpfs: the graceful stop, a line for the results it could not write, and they run again later',
    () => stopWhileFull(tmpfsFull()),
    60_000,
  );
});

interface ReadOnlyWay {
  skip: string | null;
  as: As;
  folder(): string;
  protect(dir: string, db: string): void;
  restore(dir: string, db: string): void;
  reason(dir: string): string;
}

function remount(dir: string, mode: 'ro' | 'rw'): void {
  const r = spawnSync('mount', ['-o', `remount,${mode}`, dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`remount ${mode} failed: ${r.stderr}`);
}

const READ_ONLY_WAYS: Record<string, ReadOnlyWay> = {
  'the file system remounted read-only': {
    skip: NO_TMPFS,
    as: {},
    folder: () => mountTmpfs('8m'),
    protect: (dir) => remount(dir, 'ro'),
    restore: (dir) => remount(dir, 'rw'),
    reason: () => 'the file system holding it is mounted read-only',
  },
  'the file made read-only (chmod 444)': {
    skip: ACTOR.skip,
    as: ACTOR.as,
    folder: () => folderOf(ACTOR.as),
    protect: (_dir, db) => fs.chmodSync(db, 0o444),
    restore: (_dir, db) => fs.chmodSync(db, 0o600),
    reason: () => 'the file is read-only',
  },
  'its folder made read-only (chmod 500)': {
    skip: ACTOR.skip,
    as: ACTOR.as,
    folder: () => folderOf(ACTOR.as),
    protect: (dir) => fs.chmodSync(dir, 0o500),
    restore: (dir) => fs.chmodSync(dir, 0o700),
    reason: (dir) => `its folder ${dir} is read-only`,
  },
};

describe('read-only', () => {
  for (const [how, way] of Object.entries(READ_ONLY_WAYS)) {
    it.skipIf(way.skip !== null)(
      `${how}: enqueue refused saying so, list and stats still read, a worker waits and then dispatches`,
      async () => {
        const dir = way.folder();
        const db = path.join(dir, 'queue.db');
        const as = way.as;
        const sleep = (name: string) => JSON.stringify({ kind: 'sleep', name, payload: { ms: 0 } });
        ok(await run(['enqueue', '--stdin'], { db, as, stdin: ['r1', 'r2', 'r3'].map(sleep).join('\n') }));
        // Nothing holds the file now: its last connection removed the -wal and -shm.
        way.protect(dir, db);

        // Independent of one another: run together.
        const [refused, listed, stats] = await Promise.all([
          run(['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}'], { db, as }),
          run(['--json', 'list'], { db, as }).then((r) => ok<Task[]>(r)),
          run(['--json', 'stats'], { db, as }).then((r) => ok<Stats>(r)),
        ]);
        expect(refused).toEqual({
          code: 1,
          stdout: '',
          stderr: `semaforo: cannot write to the queue database ${db}: ${way.reason(dir)}; nothing was written\n`,
        });
        expect(listed.map((t) => `${t.name} ${t.status}`).sort()).toEqual([
          'r1 pending',
          'r2 pending',
          'r3 pending',
        ]);
        expect(stats.counts.pending).toBe(3);

        const worker = start(['-v', 'work'], { db, as });
        const attempt = /^semaforo: attempt (\d+) to open for writing failed: /;
        const third = await waitFor(() => {
          const c = lastCount(worker, attempt);
          return c.n >= 3 && c;
        }, 'the worker retrying');
        const waiting = worker.lines.filter((l) => l.text.startsWith('semaforo work: cannot write'));
        expect(waiting.map((l) => l.text)).toEqual([
          `semaforo work: cannot write to the queue database ${db}: ${way.reason(dir)}; ` +
            'waiting until it can be written (checking every second, Ctrl-C stops)',
        ]);
        // Bounded: about one try a second, in one process that stays up (no crash loop).
        expect(third.n - 1).toBeLessThanOrEqual((third.at - waiting[0]!.at) / 1000 + 2);
        expect(worker.child.exitCode).toBeNull();

        way.restore(dir, db);
        await waitFor(
          () => worker.lines.some((l) => l.text === `semaforo work: ${db} can be written now; dispatching`),
          'the worker dispatching',
        );
        await waitFor(() => {
          const r = rows(db);
          return r.length === 3 && r.every((t) => t.status === 'done');
        }, 'the waiting tasks done');
        ok(await run(['enqueue', '--name', 'r4', '--kind', 'sleep', '--payload', '{"ms":0}'], { db, as }));
        await waitFor(() => rows(db).filter((r) => r.status === 'done').length === 4, 'a new task done too');
        worker.child.kill('SIGTERM');
        expect(await exitOf(worker)).toBe(0);
        expect(worker.stderr).not.toMatch(/\n\s+at /);
        expect(rows(db).map((r) => r.name)).toEqual(['r1', 'r2', 'r3', 'r4']);
        expect(integrity(db)).toBe('ok');
      },
      40_000,
    );
  }
});

describe('the database file lost under a running worker', () => {
  it('deleted: the worker says so, claims nothing more, exits 1, and leaves the new file at the path alone', async () => {
    const dir = tempDir();
    const aside = tempDir();
    const db = path.join(dir, 'queue.db');
    const log = path.join(aside, 'runs.log');
    const gate = path.join(aside, 'gate');
    ok(
      await run(['enqueue', '--stdin'], {
        db,
        stdin: ['a', 'b', 'c'].map((n) => gatedTask(n, log, gate)).join('\n'),
      }),
    );
    const old = start(['work', '-c', '1'], { db });
    await waitFor(() => started(log).includes('a'), 'a running');

    for (const suffix of ['', '-wal', '-shm']) fs.unlinkSync(db + suffix);
    const said = `semaforo: error: the queue database ${db} was deleted while this process had it open; stopped dispatching, since whatever it wrote from now on would be lost (restore the file, or restart to open what is there now)`;
    await waitFor(() => old.lines.some((l) => l.text === said), 'the worker noticing');

    // Meanwhile a new queue comes to life at the same path, kept open by another worker.
    ok(await run(['enqueue', '--stdin'], { db, stdin: gatedTask('d', log, gate) }));
    const next = start(['work'], { db });
    await waitFor(() => started(log).includes('d'), 'the new worker running d');

    fs.writeFileSync(gate, ''); // a may end now, into the lost file
    expect(await exitOf(old)).toBe(1);
    expect(old.lines.filter((l) => l.text.startsWith('semaforo: error:')).map((l) => l.text)).toEqual([said]);
    expect(old.stderr).not.toMatch(/\n\s+at /);
    // It claimed nothing after the loss: b and c never started (they went with the old file).
    expect(started(log).sort()).toEqual(['a', 'd']);

    // The old worker's exit left the new file's -wal and -shm alone: its worker goes on.
    expect(fs.existsSync(`${db}-wal`) && fs.existsSync(`${db}-shm`)).toBe(true);
    ok(await run(['enqueue', '--name', 'e', '--kind', 'sleep', '--payload', '{"ms":0}'], { db }));
    await waitFor(() => rows(db).every((r) => r.status === 'done') && rows(db).length === 2, 'd and e done');
    next.child.kill('SIGTERM');
    expect(await exitOf(next)).toBe(0);
    expect(rows(db).map((r) => r.name)).toEqual(['d', 'e']);
    expect(integrity(db)).toBe('ok');
  }, 40_000);

  it('replaced (a backup moved over it): the worker says so, exits 1, and its -wal does not leak into the restored file', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'queue.db');
    const backup = path.join(dir, 'backup.db');
    const sleep = (name: string) => JSON.stringify({ kind: 'sleep', name, payload: { ms: 0 } });
    ok(
      await run(
        ['enqueue', '--name', 'restored', '--kind', 'sleep', '--payload', '{"ms":0}', '--delay', '1h'],
        { db: backup },
      ),
    );
    ok(await run(['enqueue', '--stdin'], { db, stdin: ['old1', 'old2'].map(sleep).join('\n') }));
    const worker = start(['work'], { db });
    // Done by the worker: those writes sit in its -wal, not yet in the main file.
    await waitFor(() => {
      const r = rows(db);
      return r.length === 2 && r.every((t) => t.status === 'done');
    }, 'the old tasks done');

    fs.renameSync(backup, db);
    expect(await exitOf(worker)).toBe(1);
    expect(worker.lines.filter((l) => l.text.startsWith('semaforo: error:')).map((l) => l.text)).toEqual([
      `semaforo: error: the queue database ${db} was replaced by another file while this process had it open; stopped dispatching, since whatever it wrote from now on would be lost; removed its -wal and -shm, which belong to the lost file (restore the file, or restart to open what is there now)`,
    ]);
    // The restored file reads as it was restored; the old queue's WAL was not laid over it.
    const listed = ok<Task[]>(await run(['--json', 'list'], { db }));
    expect(listed.map((t) => `${t.name} ${t.status}`)).toEqual(['restored pending']);
    expect(integrity(db)).toBe('ok');
  }, 30_000);
});
