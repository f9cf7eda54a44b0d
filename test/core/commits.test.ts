/**
 * What each commit waits for: results and operator actions always reach the disk before they
 * return (synchronous=FULL); enqueues and claim-only ticks do not wait under the default
 * durability 'results', and do under 'full'. Observed through the synchronous level each
 * transaction ran with.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Commits } from '../../electron/core/store/sqlite/commits.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { WorkerIdentity } from '../../electron/core/store/task-store.ts';
import { ValidationError } from '../../shared/errors.ts';
import { parseInput, settingsUpdateSchema } from '../../shared/schemas.ts';
import { newTaskRow, tempDir, testEngine } from '../helpers.ts';

const worker: WorkerIdentity = { id: 'test@host:1:a', pid: process.pid, host: 'host' };
const task = newTaskRow();

function openStore(file = path.join(tempDir(), 'q.db')) {
  return new SqliteTaskStore(file);
}

/** Runs `check` on a store of a fresh file, closed afterwards whatever happens. */
function withStore(check: (store: SqliteTaskStore) => void): void {
  const store = openStore();
  try {
    check(store);
  } finally {
    store.close();
  }
}

/**
 * The level the last commit ran with, asserted both ways: the books Commits keeps, and the
 * connection itself (what SQLite really used; they differed once, see commits.ts `apply`).
 */
function expectLevel(store: SqliteTaskStore, level: 'FULL' | 'NORMAL'): void {
  expect(store.commits.lastLevel).toBe(level);
  expect(store.db.pragma('synchronous', { simple: true })).toBe(level === 'FULL' ? 2 : 1);
}

describe('commit durability', () => {
  it("under 'results' (default): enqueue and claims do not wait for the disk, results and actions do", () =>
    withStore((store) => {
      expect(store.settings().durability).toBe('results');
      const [r] = store.enqueue([task], 1000);
      expectLevel(store, 'NORMAL');
      const out = store.tick({ now: () => 1000, worker, leaseMs: 30_000, finishes: [], claimMax: 1 });
      expect(out.claimed.map((c) => c.task.id)).toEqual([r!.task.id]);
      expectLevel(store, 'NORMAL');
      const c = out.claimed[0]!;
      const done = {
        taskId: c.task.id,
        attempt: c.task.attempts,
        historyId: c.historyId,
        status: 'done' as const,
        result: null,
        output: null,
      };
      const after = store.tick({ now: () => 1001, worker, leaseMs: 30_000, finishes: [done], claimMax: 1 });
      expect(after.applied).toEqual([done]);
      expectLevel(store, 'FULL');
      store.renewLeases(worker, [], 1002, 30_000);
      expectLevel(store, 'NORMAL');
      const [waiting] = store.enqueue([task], 1003);
      expectLevel(store, 'NORMAL');
      store.cancel([waiting!.task.id], 1003);
      expectLevel(store, 'FULL');
    }));

  it('a fresh connection waits for the disk from its first commit', () =>
    withStore((store) => {
      expectLevel(store, 'FULL');
      store.updateSettings({ paused: false });
      expectLevel(store, 'FULL');
    }));

  it("under 'full': every commit waits, enqueues included; and back", () =>
    withStore((store) => {
      expect(store.updateSettings({ durability: 'full' }).durability).toBe('full');
      store.enqueue([task], 1000);
      expectLevel(store, 'FULL');
      store.tick({ now: () => 1000, worker, leaseMs: 30_000, finishes: [], claimMax: 0 });
      expectLevel(store, 'FULL');
      store.updateSettings({ durability: 'results' });
      store.enqueue([task], 1001);
      expectLevel(store, 'NORMAL');
    }));

  it('follows a change made by another process within a second', () => {
    const file = path.join(tempDir(), 'q.db');
    const mine = openStore(file);
    const other = openStore(file);
    try {
      let now = 0;
      const commits = new Commits(
        mine.db,
        false,
        () => {},
        () => now,
      );
      const enqueue = () => undefined;
      commits.run('relaxed', enqueue);
      expect(commits.lastLevel).toBe('NORMAL');
      other.updateSettings({ durability: 'full' });
      now = 500;
      commits.run('relaxed', enqueue);
      expect(commits.lastLevel).toBe('NORMAL'); // still trusting what it read
      now = 1001;
      commits.run('relaxed', enqueue);
      expect(commits.lastLevel).toBe('FULL');
    } finally {
      mine.close();
      other.close();
    }
  });

  it("is one of 'results' or 'full', refused otherwise with the field named and nothing changed", async () => {
    const engine = await testEngine();
    let refusal: unknown;
    try {
      await engine.updateSettings(parseInput(settingsUpdateSchema, { durability: 'sometimes' }));
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(ValidationError);
    expect((refusal as ValidationError).issues.map((i) => i.path)).toEqual(['durability']);
    expect((await engine.stats(0)).settings.durability).toBe('results');
  });
});
