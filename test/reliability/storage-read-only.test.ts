/**
 * Read-only storage under real `semaforo` processes: the file system remounted read-only (root,
 * tmpfs), or the file or its folder made read-only (chmod, as a user permission bits bind: this
 * one, or `nobody` when running as root). Enqueue is refused in one line saying which; list and
 * stats still read; a worker started meanwhile waits without exiting (a supervisor would restart
 * an exiting one in a loop) and dispatches once the file is writable again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Stats, Task } from '../../shared/domain.ts';
import { waitFor } from '../helpers.ts';
import {
  type As,
  NO_TMPFS,
  ACTOR,
  mountTmpfs,
  folderOf,
  start,
  run,
  ok,
  exitOf,
  rows,
  integrity,
  lastCount,
} from './storage-fault-rig.ts';

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
