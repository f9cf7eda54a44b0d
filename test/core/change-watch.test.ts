/**
 * Change notification on SQLite: another process's commit reaches a listener through the -wal
 * file's events (the poll here is set to an hour, so nothing else could deliver it in time),
 * across checkpoints that truncate the file, while the file is missing and made again, and by
 * polling (said once) where watching is not trusted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ChangeWatch, type ChangeWatchOptions } from '../../electron/core/store/sqlite/change-watch.ts';
import { openSqliteStore } from '../../electron/core/store/sqlite/async-store.ts';
import { exited, spawnReady, tempDir, waitFor } from '../helpers.ts';

const COMMITTER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'committer.ts');
const HOUR = 3_600_000;

/** A watch on a fresh -wal file (poll an hour away), to which a writer has just appended frames. */
async function watchingWal(
  o: Pick<ChangeWatchOptions, 'dataVersion' | 'onChange' | 'nap'>,
  body: (wal: string) => Promise<void>,
): Promise<void> {
  const file = path.join(tempDir(), 'q.db');
  fs.writeFileSync(`${file}-wal`, '');
  const w = new ChangeWatch({ file, pollMs: HOUR, notice: () => {}, ...o });
  w.start();
  try {
    fs.appendFileSync(`${file}-wal`, 'frames');
    await body(`${file}-wal`);
  } finally {
    w.stop();
  }
}

describe('change watch (SQLite)', () => {
  it("wakes a listener for another process's commits, also after checkpoints truncate the -wal file", async () => {
    const file = path.join(tempDir(), 'q.db');
    const notices: string[] = [];
    const store = openSqliteStore(file, { watchIntervalMs: HOUR, onWatchNotice: (m) => notices.push(m) });
    const child = await spawnReady([COMMITTER, file]);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    let calls = 0;
    const stop = store.watch(() => calls++);
    try {
      for (let i = 1; i <= 3; i++) {
        // (a checkpoint may count as a change too: only "at least one call per commit" holds)
        const before = calls;
        child.kill('SIGUSR2');
        await waitFor(() => out.split('committed').length > i, `commit ${i} done`, 10_000);
        await waitFor(() => calls > before, `the listener called for commit ${i}`, 10_000);
      }
      // Each commit was checkpointed away: the watch survived the file emptied under it.
      expect(out).toContain('committed 0');
      expect((await store.settings()).retentionDays).toBe(3);
      expect(notices).toEqual([]);
    } finally {
      stop();
      child.kill('SIGTERM');
      await exited(child);
      await store.close();
    }
  });

  it('waits for a missing -wal file and watches it once it appears, and again when remade', async () => {
    const file = path.join(tempDir(), 'q.db');
    const wal = `${file}-wal`;
    let version = 0;
    let calls = 0;
    const w = new ChangeWatch({
      file,
      dataVersion: () => version,
      onChange: () => calls++,
      pollMs: HOUR,
      notice: () => {},
    });
    w.start();
    try {
      expect(w.waitingForWal).toBe(true);
      version = 1;
      fs.writeFileSync(wal, 'frames');
      await waitFor(() => calls === 1, 'the change seen once the -wal file appeared', 10_000);
      expect(w.waitingForWal).toBe(false);
      fs.rmSync(wal);
      await waitFor(() => w.waitingForWal, 'the folder watched again after the file went', 10_000);
      fs.writeFileSync(wal, '');
      await waitFor(() => !w.waitingForWal, 'the new file watched', 10_000);
      version = 2;
      fs.appendFileSync(wal, 'more frames');
      await waitFor(() => calls === 2, 'a write to the new file seen', 10_000);
    } finally {
      w.stop();
    }
  });

  it('confirms an event that came before the commit showed', async () => {
    const file = path.join(tempDir(), 'q.db');
    fs.writeFileSync(`${file}-wal`, '');
    let version = 0;
    let calls = 0;
    const w = new ChangeWatch({
      file,
      dataVersion: () => version,
      onChange: () => calls++,
      pollMs: HOUR,
      notice: () => {},
    });
    w.start();
    try {
      // Frames written, the commit not yet published (as during a writer's fsync).
      fs.appendFileSync(`${file}-wal`, 'frames');
      await new Promise((r) => setTimeout(r, 5));
      version = 1;
      await waitFor(() => calls === 1, 'the commit seen by a re-check, with no further event', 10_000);
    } finally {
      w.stop();
    }
  });

  it('naps between the quick looks after an event, and sees a commit published meanwhile', async () => {
    let published = false;
    let naps = 0;
    let napsAtChange = -1;
    await watchingWal(
      {
        dataVersion: () => (published ? 1 : 0),
        onChange: () => (napsAtChange = naps),
        // The writer publishes its commit while this thread sleeps, on the third nap.
        nap: () => {
          if (++naps === 3) published = true;
          return true;
        },
      },
      async () => {
        await waitFor(() => napsAtChange >= 0, 'the commit seen', 10_000);
        // Seen by the look right after that nap, and no nap after it.
        expect(napsAtChange).toBe(3);
        await new Promise((r) => setTimeout(r, 20));
        expect(naps).toBe(3);
      },
    );
  });

  it('looks at every event-loop turn instead where the thread may not sleep', async () => {
    let published = false;
    let tries = 0;
    let calls = 0;
    await watchingWal(
      {
        dataVersion: () => (published ? 1 : 0),
        onChange: () => calls++,
        nap: () => {
          if (++tries === 2) published = true; // published by the second turn's look
          return false;
        },
      },
      async () => {
        await waitFor(() => calls === 1, 'the commit seen', 10_000);
        expect(tries).toBe(2);
      },
    );
  });

  it('spins no more after a spin that saw nothing, until a change shows (a long write elsewhere)', async () => {
    let version = 0;
    let naps = 0;
    let calls = 0;
    await watchingWal(
      {
        dataVersion: () => version,
        onChange: () => calls++,
        nap: () => (naps++, true),
      },
      async (wal) => {
        // A spin runs in one turn of the event loop: once a nap is seen, it is over.
        await waitFor(() => naps > 0, 'the first spin', 10_000);
        const after = naps;
        fs.appendFileSync(wal, 'more frames'); // the same long write: no new spin
        await new Promise((r) => setTimeout(r, 50));
        expect(naps).toBe(after);
        version = 1; // its commit shows, to a re-check
        await waitFor(() => calls === 1, 'the commit seen', 10_000);
        await new Promise((r) => setTimeout(r, 10)); // out of the quiet window of that change
        fs.appendFileSync(wal, 'next write'); // a new write after a change: spins again
        await waitFor(() => naps > after, 'a new spin', 10_000);
      },
    );
  });

  it('keeps looking for a commit whose fsync takes longer than the quick re-checks', async () => {
    const file = path.join(tempDir(), 'q.db');
    fs.writeFileSync(`${file}-wal`, '');
    let version = 0;
    let looks = 0;
    let calls = 0;
    const w = new ChangeWatch({
      file,
      dataVersion: () => (looks++, version),
      onChange: () => calls++,
      pollMs: 20,
      notice: () => {},
    });
    w.start();
    try {
      fs.appendFileSync(`${file}-wal`, 'frames');
      // The quick re-checks are over within ~130 ms; a slow disk's fsync lasts longer.
      await waitFor(() => looks > 12, 'the quick re-checks', 10_000);
      await new Promise((r) => setTimeout(r, 400));
      const before = looks;
      await new Promise((r) => setTimeout(r, 300));
      // Still looking at pollMs (the safety poll alone would look once a second at most).
      expect(looks - before).toBeGreaterThan(2);
      version = 1;
      await waitFor(() => calls === 1, 'the slow commit seen', 10_000);
    } finally {
      w.stop();
    }
  });

  it('takes a flood of commits by polling, then watches again', async () => {
    const file = path.join(tempDir(), 'q.db');
    const wal = `${file}-wal`;
    fs.writeFileSync(wal, '');
    let version = 0;
    let seen = 0;
    const w = new ChangeWatch({
      file,
      dataVersion: () => version,
      onChange: () => (seen = version),
      pollMs: 5,
      notice: () => {},
    });
    w.start();
    try {
      for (let i = 1; i <= 40; i++) {
        version = i;
        fs.appendFileSync(wal, 'frame');
        await new Promise((r) => setImmediate(r));
      }
      await waitFor(() => seen === 40, 'the last commit of the flood seen', 10_000);
      // Well after the flood: one commit, one event, seen by the watch again.
      await new Promise((r) => setTimeout(r, 400));
      version = 41;
      fs.appendFileSync(wal, 'frame');
      await waitFor(() => seen === 41, 'a commit after the flood seen', 10_000);
      expect(w.mode).toBe('watch');
    } finally {
      w.stop();
    }
  });

  it('polls on a network file system, and says so once', async () => {
    const file = path.join(tempDir(), 'q.db');
    let version = 0;
    let calls = 0;
    const notices: string[] = [];
    const w = new ChangeWatch({
      file,
      dataVersion: () => version,
      onChange: () => calls++,
      pollMs: 5,
      notice: (m) => notices.push(m),
      fsType: () => 0x6969,
    });
    w.start();
    try {
      expect(w.mode).toBe('poll');
      version = 1;
      await waitFor(() => calls === 1, 'the change seen by the poll', 10_000);
      version = 2;
      await waitFor(() => calls === 2, 'the next change seen by the poll', 10_000);
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(/NFS file system.*every 5 ms/);
      expect(notices[0]).toContain(file);
    } finally {
      w.stop();
    }
  });
});
