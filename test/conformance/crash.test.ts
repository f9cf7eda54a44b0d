/** What a process that dies leaves behind: its enqueues are kept and its leases can be reclaimed. */
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LeaseHolder } from '../../electron/core/store/task-store.ts';
import { exited, spawnNode, waitFor } from '../helpers.ts';
import { backends, freshQueue, task } from './harness.ts';

const RACER = path.join(import.meta.dirname, 'fixtures', 'racer.ts');

/** The JSON lines a child has printed so far, read as they come. */
function jsonLines(child: ChildProcess): () => number[][] {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return () =>
    out
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as number[]);
}

function isGone(o: LeaseHolder): boolean {
  if (o.host !== os.hostname() || o.pid === null) return false;
  try {
    process.kill(o.pid, 0);
    return false;
  } catch {
    return true;
  }
}

describe.each(backends)('a process that dies, on $name', (backend) => {
  it('loses none of the tasks whose enqueue had returned', async () => {
    const { store, location } = await freshQueue(backend);
    const child = spawnNode([RACER, 'enqueue', backend.name, location, '6']);
    const lines = jsonLines(child);
    await waitFor(() => lines().length === 6, 'six enqueues to return', 30_000);
    child.kill('SIGKILL');
    await exited(child);
    const ids = lines().flat();
    expect(ids).toHaveLength(3 * 50 + 3);
    const listed = (await store.listTasks({ limit: 1000, order: 'asc' })).tasks;
    expect(listed.map((t) => t.id)).toEqual(ids);
    expect(listed.every((t) => t.status === 'pending')).toBe(true);
    expect((await store.stats(0, 0)).counts.pending).toBe(ids.length);
  });

  it('leaves its running task to be reclaimed once the caller judges its owner gone', async () => {
    const { store, location } = await freshQueue(backend);
    await store.enqueue([task({ name: 'held' }), task({ name: 'waiting' })], Date.now());
    const child = spawnNode([RACER, 'hold', backend.name, location, 'holder@racer:1:h']);
    const lines = jsonLines(child);
    const [held] = (await waitFor(() => lines()[0], 'the child to claim a task', 30_000)) as number[];
    // Alive: nothing to reclaim, whatever the lease says.
    expect(await store.reclaimLost(Date.now(), isGone)).toEqual([]);
    expect(await store.getTask(held!)).toMatchObject({ status: 'running', leaseOwner: 'holder@racer:1:h' });
    child.kill('SIGKILL');
    await exited(child);
    expect(await store.reclaimLost(Date.now(), isGone)).toEqual([{ id: held, status: 'pending' }]);
    const t = (await store.getTask(held!))!;
    expect(t).toMatchObject({ status: 'pending', attempts: 1, leaseOwner: null });
    expect(t.history.map((h) => h.outcome)).toEqual(['lost']);
  });
});
