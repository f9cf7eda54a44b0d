/**
 * Limits under concurrent claimers: several connections (and processes) claiming from one queue
 * in a loop never exceed the global or a group limit, and never hold one task twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exited, spawnNode, tempDir } from '../helpers.ts';
import { backends, freshQueue, task, tasks, type Queue } from './harness.ts';
import { GATE, peakOverlap, runClaimer } from './racers.ts';

const RACER = path.join(import.meta.dirname, 'fixtures', 'racer.ts');
const GLOBAL = 5;
const LIMITS = { one: 1, two: 2 };

/** Gates first, then a mix of limited and free groups; returns every task id. */
async function fill(q: Queue, gates: number, perGroup: number): Promise<number[]> {
  await q.store.updateSettings({ globalConcurrency: GLOBAL });
  for (const [group, concurrency] of Object.entries(LIMITS))
    await q.store.updateGroup(group, { concurrency });
  const out = await q.store.enqueue(
    [
      ...tasks(gates, { group: GATE, priority: 0 }, 'gate'),
      ...['one', 'two', 'free'].flatMap((group) =>
        Array.from({ length: perGroup }, (_, i) => task({ name: `${group}${i}`, group, priority: i % 3 })),
      ),
    ],
    0,
  );
  return out.map((r) => r.task.id);
}

/** What every race must leave: each task done after exactly one attempt, and no limit exceeded. */
async function expectRaceHeld(q: Queue, ids: number[], claimedBy: number[][]) {
  const all = claimedBy.flat();
  expect(all.length, 'tasks claimed, counting repeats').toBe(ids.length);
  expect(new Set(all)).toEqual(new Set(ids));
  for (const mine of claimedBy) expect(mine.length, 'every racer took part').toBeGreaterThan(0);
  const seen = await Promise.all(ids.map(async (id) => (await q.store.getTask(id))!));
  for (const t of seen) {
    expect(t.status).toBe('done');
    expect(t.history.filter((h) => h.type === 'attempt')).toHaveLength(1);
  }
  const peak = peakOverlap(seen);
  expect(peak.total).toBeLessThanOrEqual(GLOBAL);
  expect(peak.byGroup.get('one')).toBe(LIMITS.one);
  expect(peak.byGroup.get('two')).toBeLessThanOrEqual(LIMITS.two);
  expect((await q.store.stats(0, 0)).counts).toMatchObject({ pending: 0, running: 0, done: ids.length });
}

describe.each(backends)('concurrent claimers on $name', (backend) => {
  it('connections of one process racing on a queue keep every limit and claim each task once', async () => {
    const q = await freshQueue(backend);
    const racers = [q.store, await q.connect(), await q.connect()];
    const ids = await fill(q, racers.length, 40);
    let clock = 0;
    const claimedBy = await Promise.all(
      racers.map((store, i) =>
        runClaimer(store, {
          worker: { id: `racer${i}@host:${i}:r`, pid: 1000 + i, host: 'host' },
          stamp: () => ++clock,
          seed: i + 1,
          gates: racers.length,
          maxInFlight: 3,
        }),
      ),
    );
    await expectRaceHeld(q, ids, claimedBy);
  });

  it('processes racing on a queue keep every limit and claim each task once', async () => {
    const q = await freshQueue(backend);
    const n = 3;
    const ids = await fill(q, n, 40);
    const clockFile = path.join(tempDir(), 'clock');
    fs.writeFileSync(clockFile, '0');
    const children = Array.from({ length: n }, (_, i) =>
      spawnNode([
        RACER,
        'claim',
        backend.name,
        q.location,
        `proc${i}@racer:${i}:p`,
        String(i + 7),
        String(n),
        '3',
        clockFile,
      ]),
    );
    const outputs = children.map((c) => {
      let out = '';
      let err = '';
      c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      c.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      return () => ({ out, err });
    });
    const codes = await Promise.all(children.map(exited));
    expect(codes, outputs.map((o) => o().err).join('\n')).toEqual(children.map(() => 0));
    const claimedBy = outputs.map((o) => JSON.parse(o().out) as number[]);
    await expectRaceHeld(q, ids, claimedBy);
  }, 60_000);
});
