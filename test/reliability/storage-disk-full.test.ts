/**
 * Disk full, injected for real under real `semaforo` processes: a tmpfs filled to the last byte
 * (where this process may mount one: root), and otherwise, or as well, a file-size limit on the
 * processes (RLIMIT_FSIZE via prlimit), which fails their writes the same way without root. An
 * enqueue is refused in one line naming the file and writes nothing of its batch; a worker says
 * so once, retries about once a second without spinning, keeps the results it could not write,
 * and goes on by itself once writes work again: every task done with its result, the file whole.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tempDir, waitFor } from '../helpers.ts';
import {
  NO_TMPFS,
  NO_PRLIMIT,
  mountTmpfs,
  start,
  run,
  ok,
  exitOf,
  esc,
  rows,
  integrity,
  started,
  gatedTask,
  cpuMs,
  lastCount,
} from './storage-fault-rig.ts';

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
