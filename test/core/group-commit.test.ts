/**
 * Group commit: a result is told (change events, whenIdle) only once a sync of the store that
 * began after its commit has finished, and ticks committed during one sync share the next.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GroupCommit } from '../../electron/core/dispatch/group-commit.ts';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import { openSqliteStore } from '../../electron/core/store/sqlite/async-store.ts';
import { testEngine, tempDir, waitFor } from '../helpers.ts';

/** A sync the test lets finish, one call at a time. */
function gatedSync() {
  const gates: (() => void)[] = [];
  return {
    calls: () => gates.length,
    sync: () => new Promise<void>((resolve) => gates.push(resolve)),
    release: (i: number) => gates[i]!(),
  };
}

describe('group commit', () => {
  it('reports after the sync that began after the commit; commits during a sync share the next', async () => {
    const g = gatedSync();
    const told: string[] = [];
    const gc = new GroupCommit(
      g.sync,
      () => {},
      () => {},
    );
    gc.after(() => told.push('a'));
    expect(g.calls()).toBe(1);
    gc.after(() => told.push('b'));
    gc.after(() => told.push('c'));
    expect(g.calls()).toBe(1);
    g.release(0);
    await waitFor(() => g.calls() === 2, 'the second sync');
    // b and c were committed after the first sync began: not covered by it.
    expect(told).toEqual(['a']);
    const flushed = gc.flush();
    g.release(1);
    await flushed;
    expect(told).toEqual(['a', 'b', 'c']);
    expect(gc.pending).toBe(false);
  });

  it('is off unless asked for: ticks with results then wait for their own fsync', async () => {
    const store = openSqliteStore(path.join(tempDir(), 'q.db'));
    const g = gatedSync();
    store.syncResults = g.sync;
    const engine = await testEngine({
      store,
      handlers: [
        defineHandler({ kind: 'noop', description: 'test', payload: z.object({}), run: async () => {} }),
      ],
    });
    engine.start();
    const { task } = await engine.enqueue({ kind: 'noop', payload: {} });
    await engine.whenIdle();
    await waitFor(async () => (await store.getTask(task.id))?.status === 'done', 'done');
    expect(g.calls()).toBe(0);
    await engine.close();
  });

  it('reports nothing after a failed sync, and tries again until one succeeds', async () => {
    let fail = true;
    const told: string[] = [];
    const failures: unknown[] = [];
    const gc = new GroupCommit(
      () => (fail ? Promise.reject(new Error('EIO')) : Promise.resolve()),
      (err) => {
        failures.push(err);
        fail = false;
      },
      () => {},
    );
    gc.after(() => told.push('a'));
    // A flush gives up at a failed sync (a stopping worker does not hang on a failing disk).
    expect(await gc.flush()).toBe(false);
    expect(failures).toHaveLength(1);
    expect(told).toEqual([]);
    expect(await gc.flush()).toBe(true);
    expect(told).toEqual(['a']);
  });

  it("a dispatcher tells of a task's end only once the store's sync after it is done", async () => {
    const store = openSqliteStore(path.join(tempDir(), 'q.db'));
    const g = gatedSync();
    store.syncResults = g.sync;
    const engine = await testEngine({
      store,
      groupCommit: true,
      eventIntervalMs: 0,
      handlers: [
        defineHandler({ kind: 'noop', description: 'test', payload: z.object({}), run: async () => {} }),
      ],
    });
    const told = new Set<number>();
    engine.onChange((b) => b.taskIds.forEach((id) => told.add(id)));
    engine.start();
    const { task } = await engine.enqueue({ kind: 'noop', payload: {} });
    await waitFor(async () => (await store.getTask(task.id))?.status === 'done', 'done in the file');
    let idle = false;
    void engine.whenIdle().then(() => (idle = true));
    await waitFor(() => g.calls() === 1, 'a sync asked for');
    // Committed, not yet on the disk: only its start has been told (flushed meanwhile).
    await new Promise((r) => setTimeout(r, 50));
    told.clear();
    await new Promise((r) => setTimeout(r, 50));
    expect(told.has(task.id)).toBe(false);
    expect(idle).toBe(false);
    g.release(0);
    try {
      await waitFor(() => told.has(task.id) && idle, 'the end told after the sync');
    } finally {
      g.release(0);
      await engine.close();
    }
  });
});
