/**
 * After a full disk, how much must be freed for a worker to go on: about one WAL limit, not
 * several times the queue's size. A worker draining 40,000 tasks on a tmpfs (8 MB queue, its
 * -wal at the 8 MB limit) has the disk filled to the last byte under it, then gets back one
 * WAL limit of space: it must finish every task, the file whole.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WAL_SIZE_LIMIT } from '../../electron/core/store/sqlite/open.ts';
import { tempDir, testEngine, waitFor } from '../helpers.ts';
import { checkFile } from './fixtures/file-checks.ts';

const mounts: string[] = [];
afterEach(() => {
  for (const m of mounts.splice(0)) spawnSync('umount', ['-l', m]);
});

function tmpfs(size: string): string | null {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return null;
  const dir = path.join(tempDir(), 'disk');
  fs.mkdirSync(dir);
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  if (r.status !== 0) return null;
  mounts.push(dir);
  return dir;
}

const probe = tmpfs('64k');
const why = probe === null ? 'mounting a tmpfs needs root on Linux' : null;
if (why) console.log(`skipped: disk headroom test (${why})`);

/** Fills the file system holding `file` to the last byte. */
function fillUp(file: string): void {
  const fd = fs.openSync(file, 'w');
  for (const size of [1 << 20, 4096, 1])
    try {
      for (;;) fs.writeSync(fd, Buffer.alloc(size));
    } catch {
      // full at this chunk size: go on with a smaller one
    }
  fs.closeSync(fd);
}

describe.skipIf(why !== null)('a worker after a full disk', () => {
  it('goes on with one WAL limit freed, and finishes every task', async () => {
    const dir = tmpfs('96m')!;
    const db = path.join(dir, 'queue.db');
    const errors: string[] = [];
    const engine = await testEngine({
      file: db,
      logger: { info: () => {}, warn: () => {}, error: (m) => errors.push(m) },
    });
    await engine.updateSettings({ globalConcurrency: 64 });
    const total = 40_000;
    for (let i = 0; i < total; i += 1000)
      await engine.enqueueMany(Array.from({ length: 1000 }, () => ({ kind: 'sleep', payload: { ms: 0 } })));
    engine.start();
    await waitFor(async () => (await engine.stats(0)).counts.done >= total / 2, 'half done', 60_000);
    const filler = path.join(dir, 'filler');
    fillUp(filler);
    await waitFor(() => errors.some((e) => /the disk is full/.test(e)), 'the worker to find the disk full');
    fs.truncateSync(filler, fs.statSync(filler).size - WAL_SIZE_LIMIT);
    await waitFor(async () => (await engine.stats(0)).counts.done === total, 'every task done', 60_000);
    await engine.close();
    checkFile(db);
    expect(errors.filter((e) => /the disk is full/.test(e)).length).toBeLessThanOrEqual(2);
  });
});
