/** Machine gates as the store keeps them, and the claim held back by a dispatcher's verdict. */
import { describe, expect, it } from 'vitest';
import type { GateConfig } from '../../shared/domain.ts';
import { A, backends, claim, done, freshQueue, LEASE_MS, names, task } from './harness.ts';

const open = () => ({ queueClosed: false, closedGroups: new Set<string>() });

describe.each(backends)('machine gates on $name', (backend) => {
  it('keeps each gate, merges changes, and lists them in stats', async () => {
    const { store } = await freshQueue(backend);
    expect(
      await store.setGate('backups', { maxLoad: 0.8, onAc: true, whenIdleMs: 300_000, pauseRunning: true }),
    ).toEqual({
      group: 'backups',
      maxLoad: 0.8,
      minFreeMemory: null,
      onAc: true,
      whenIdleMs: 300_000,
      pauseRunning: true,
    });
    await store.setGate('backups', { minFreeMemory: 1024 ** 3, maxLoad: null });
    await store.setGate(null, { maxLoad: 1.5 });
    const none = { whenIdleMs: null, pauseRunning: false };
    expect((await store.stats(0, 0)).gates).toEqual([
      { group: null, maxLoad: 1.5, minFreeMemory: null, onAc: false, ...none },
      {
        group: 'backups',
        maxLoad: null,
        minFreeMemory: 1024 ** 3,
        onAc: true,
        whenIdleMs: 300_000,
        pauseRunning: true,
      },
    ]);
    await store.setGate('backups', { whenIdleMs: null, pauseRunning: false });
    expect((await store.stats(0, 0)).gates[1]).toMatchObject(none);
    expect(await store.removeGate(null)).toBe(true);
    expect(await store.removeGate(null)).toBe(false);
    expect((await store.stats(0, 0)).gates.map((g) => g.group)).toEqual(['backups']);
  });

  it('claims nothing of a group the verdict closes, nothing at all when the queue’s is closed', async () => {
    const { store } = await freshQueue(backend);
    await store.setGate('backups', { maxLoad: 0.8 });
    await store.enqueue([task({ name: 'b', group: 'backups' }), task({ name: 'x', group: 'other' })], 0);
    const seen: GateConfig[][] = [];
    const groupClosed = (g: readonly GateConfig[]) => {
      seen.push([...g]);
      return { queueClosed: false, closedGroups: new Set(['backups']) };
    };
    expect(names(await claim(store, A, 10, 1, { gates: groupClosed }))).toEqual(['x']);
    expect(seen).toEqual([
      [
        {
          group: 'backups',
          maxLoad: 0.8,
          minFreeMemory: null,
          onAc: false,
          whenIdleMs: null,
          pauseRunning: false,
        },
      ],
    ]);
    await store.enqueue([task({ name: 'y', group: 'other' })], 2);
    const first = await claim(store, A, 10, 3, { gates: () => ({ ...open(), queueClosed: true }) });
    expect(first).toEqual([]);
    // A closed queue gate still lets finishes be written.
    const running = (await store.listTasks({ status: ['running'] })).tasks;
    const history = (await store.getTask(running[0]!.id))!.history;
    const out = await store.tick({
      now: () => 4,
      worker: A,
      leaseMs: LEASE_MS,
      finishes: [done({ task: running[0]!, historyId: history[0]!.id })],
      claimMax: 10,
      gates: () => ({ ...open(), queueClosed: true }),
    });
    expect([out.applied.length, out.claimed.length]).toEqual([1, 0]);
    // Removed, the judge is still asked (with none), so it can forget what it had closed.
    await store.removeGate('backups');
    const asked: number[] = [];
    const got = await claim(store, A, 10, 5, {
      gates: (g) => {
        asked.push(g.length);
        return open();
      },
    });
    expect(names(got).sort()).toEqual(['b', 'y']);
    expect(asked).toEqual([0]);
  });
});
