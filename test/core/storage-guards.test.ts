/**
 * The pure decisions behind the storage-fault handling (the real faults, with real processes,
 * are in test/reliability/storage-faults.test.ts): is the open file still the one at its path,
 * what does a storage error mean to the user, and how often does a failing worker say so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DbFileGuard,
  fileIdOf,
  judgeFiles,
  lostFileMessage,
  openedFiles,
  orphanedSidecars,
  type FileId,
} from '../../electron/core/db-file-guard.ts';
import { WriteFailures } from '../../electron/core/dispatch/write-failures.ts';
import { classifyStorageError, type StorageFacts } from '../../electron/core/store/sqlite/storage-errors.ts';
import { tempDir } from '../helpers.ts';

const id = (dev: number, ino: number): FileId => ({ dev: BigInt(dev), ino: BigInt(ino) });

describe('judgeFiles', () => {
  const watched = [
    { path: '/q/queue.db', opened: id(1, 10) },
    { path: '/q/queue.db-wal', opened: id(1, 11) },
  ];

  it('finds nothing while every path names what was opened, or cannot be looked up', () => {
    expect(judgeFiles(watched, [id(1, 10), id(1, 11)])).toBeNull();
    // A look-up error (a folder made unreadable) proves nothing either way.
    expect(judgeFiles(watched, ['unknown', 'unknown'])).toBeNull();
  });

  it('reports a deleted file, and a path that now names another file (inode or device)', () => {
    expect(judgeFiles(watched, [id(1, 10), 'missing'])).toEqual({
      path: '/q/queue.db-wal',
      change: 'deleted',
    });
    expect(judgeFiles(watched, [id(1, 99), id(1, 11)])).toEqual({ path: '/q/queue.db', change: 'replaced' });
    expect(judgeFiles(watched, [id(2, 10), id(1, 11)])).toEqual({ path: '/q/queue.db', change: 'replaced' });
  });

  it('says which file, what happened and what the process did, in one line', () => {
    const db = lostFileMessage('/q/queue.db', { path: '/q/queue.db', change: 'deleted' });
    expect(db).toMatch(
      /^the queue database \/q\/queue\.db was deleted while this process had it open; stopped dispatching/,
    );
    const wal = lostFileMessage('/q/queue.db', { path: '/q/queue.db-wal', change: 'replaced' });
    expect(wal).toMatch(
      /^queue\.db-wal, the write-ahead log of the queue database \/q\/queue\.db, was replaced/,
    );
    expect(`${db}${wal}`).not.toContain('\n');
  });

  it('after the database file is lost, removes only the sidecars that are still the ones it opened', () => {
    const all = [
      { path: '/q/queue.db', opened: id(1, 10) },
      { path: '/q/queue.db-wal', opened: id(1, 11) },
      { path: '/q/queue.db-shm', opened: id(1, 12) },
    ];
    const dbGone = { path: '/q/queue.db', change: 'deleted' } as const;
    expect(orphanedSidecars('/q/queue.db', all, ['missing', id(1, 11), id(1, 12)], dbGone)).toEqual([
      '/q/queue.db-wal',
      '/q/queue.db-shm',
    ]);
    // Another process's new -wal at the path, a -shm already gone: neither is ours to remove.
    expect(orphanedSidecars('/q/queue.db', all, ['missing', id(1, 50), 'missing'], dbGone)).toEqual([]);
    // Only a sidecar lost: the database is still ours, and so is the other sidecar.
    const walGone = { path: '/q/queue.db-wal', change: 'deleted' } as const;
    expect(orphanedSidecars('/q/queue.db', all, [id(1, 10), 'missing', id(1, 12)], walGone)).toEqual([]);
    expect(lostFileMessage('/q/queue.db', dbGone, ['/q/queue.db-wal', '/q/queue.db-shm'])).toContain(
      'removed its -wal and -shm, which belong to the lost file',
    );
  });

  it('on real files: a renamed-over and a deleted file are told apart from an untouched one', () => {
    const dir = tempDir();
    const file = path.join(dir, 'queue.db');
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.writeFileSync(f, 'x');
    const guard = new DbFileGuard(file, openedFiles(file));
    expect(guard.check()).toBeNull();
    fs.writeFileSync(path.join(dir, 'other'), 'y');
    fs.renameSync(path.join(dir, 'other'), `${file}-shm`);
    expect(guard.check()).toMatch(/queue\.db-shm, the shared-memory index .* was replaced/);
    fs.unlinkSync(file);
    expect(guard.check()).toMatch(/the queue database .* was deleted .*; removed its -wal, which belongs/);
    // Its -wal went with it (it would have been taken for the next queue.db's); the -shm at the
    // path is another file, left alone.
    expect(fs.readdirSync(dir).sort()).toEqual(['queue.db-shm']);
    expect(fileIdOf(path.join(dir, 'nope', 'x'))).toBe('missing');
  });
});

describe('classifyStorageError', () => {
  const file = '/data/semaforo/queue.db';
  const facts = (f: Partial<StorageFacts> = {}): StorageFacts => ({
    freeBytes: 10 ** 9,
    file: 'yes',
    folder: 'yes',
    shm: 'yes',
    ...f,
  });

  it('a full disk, whether SQLite says FULL or hides it behind an I/O error', () => {
    const full = {
      condition: 'full',
      message: `cannot write to the queue database ${file}: the disk is full`,
    };
    expect(classifyStorageError('SQLITE_FULL', file, facts())).toEqual(full);
    expect(classifyStorageError('ENOSPC', file, facts())).toEqual(full);
    expect(classifyStorageError('SQLITE_IOERR_SHMSIZE', file, facts({ freeBytes: 0 }))).toEqual(full);
    // With space left, an I/O error is an I/O error, and says which.
    expect(classifyStorageError('SQLITE_IOERR_WRITE', file, facts())).toEqual({
      condition: 'io',
      message: `cannot write to the queue database ${file}: disk I/O error (SQLITE_IOERR_WRITE)`,
    });
    expect(classifyStorageError('SQLITE_IOERR_SHORT_READ', file, facts())?.message).toMatch(/^cannot read /);
  });

  it('read-only: the file, its folder, the mount, or a -shm left read-only', () => {
    const reason = (code: string, f: Partial<StorageFacts>) =>
      classifyStorageError(code, file, facts(f))?.message.replace(
        `cannot write to the queue database ${file}: `,
        '',
      );
    expect(reason('SQLITE_READONLY', { file: 'no' })).toBe('the file is read-only');
    expect(reason('SQLITE_READONLY_DIRECTORY', {})).toBe('its folder /data/semaforo is read-only');
    expect(reason('SQLITE_READONLY', { file: 'read-only-fs', folder: 'read-only-fs' })).toBe(
      'the file system holding it is mounted read-only',
    );
    expect(reason('SQLITE_READONLY_CANTINIT', { shm: 'no' })).toBe('queue.db-shm next to it is read-only');
    expect(classifyStorageError('SQLITE_READONLY', file, facts())?.condition).toBe('read-only');
  });

  it('cannot open: says why when it can tell', () => {
    expect(
      classifyStorageError('SQLITE_CANTOPEN', file, facts({ folder: 'read-only-fs', file: 'read-only-fs' }))
        ?.message,
    ).toBe(
      `cannot open the queue database ${file}: the file system holding it is mounted read-only, and SQLite must create queue.db-shm next to it to read it`,
    );
    expect(classifyStorageError('EACCES', file, facts({ file: 'missing', folder: 'no' }))?.message).toBe(
      `cannot open the queue database ${file}: it does not exist and its folder /data/semaforo is read-only`,
    );
    // An unreadable file is not blamed on its read-only folder.
    expect(
      classifyStorageError('SQLITE_CANTOPEN', file, facts({ file: 'no', folder: 'no', readable: false }))
        ?.message,
    ).toBe(`cannot open the queue database ${file}: permission denied: this user may not read it`);
  });

  it('leaves other errors alone (busy, corrupt, not a database: reported elsewhere)', () => {
    for (const code of ['SQLITE_BUSY', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CONSTRAINT_UNIQUE'])
      expect(classifyStorageError(code, file, facts())).toBeNull();
  });
});

describe('WriteFailures', () => {
  function harness() {
    const lines: string[] = [];
    let now = 0;
    const log = new WriteFailures(
      {
        info: (m) => lines.push(`info: ${m}`),
        warn: (m) => lines.push(`warn: ${m}`),
        error: (m) => lines.push(`error: ${m}`),
      },
      { now: () => now },
      60_000,
    );
    return { lines, log, advance: (ms: number) => (now += ms) };
  }

  it('an episode: one error, quiet retries (verbose only), a reminder a minute on, one line on recovery', () => {
    const { lines, log, advance } = harness();
    log.failed('the disk is full', 2);
    for (let i = 0; i < 59; i++) {
      advance(1000);
      log.failed('the disk is full', 2);
    }
    advance(1000);
    log.failed('the disk is full', 2);
    log.succeeded();
    log.succeeded(); // nothing more to say
    const loud = lines.filter((l) => !l.startsWith('info: '));
    expect(loud).toEqual([
      'error: the disk is full; the dispatcher retries every second; 2 finished result(s) are kept until then',
      'error: the disk is full; still retrying (attempt 61, for 60 s); 2 finished result(s) are kept until then',
      'warn: the queue can be written again after 61 failed attempt(s) over 60 s; dispatching goes on',
    ]);
    expect(lines.filter((l) => l.startsWith('info: '))).toHaveLength(59);
  });

  it('a new cause is said, once a few seconds passed since the last line; a new episode starts afresh', () => {
    const { lines, log, advance } = harness();
    log.failed('the disk is full', 0);
    // A server restarting churns through causes within a second: one outage, one line.
    log.failed('read ECONNRESET', 0);
    log.failed('connect ECONNREFUSED', 0);
    advance(5000);
    log.failed('the file is read-only', 0);
    log.succeeded();
    log.failed('the disk is full', 0);
    expect(lines.filter((l) => !l.startsWith('info: ')).map((l) => l.slice(0, 40))).toEqual([
      'error: the disk is full; the dispatcher ',
      'error: the file is read-only; still retr',
      'warn: the queue can be written again aft',
      'error: the disk is full; the dispatcher ',
    ]);
  });
});
