/**
 * A tick whose many successful ends are written beside its claim, on a second connection
 * (tick-apart.ts), claims what the one-transaction tick would: at a group's limit the better
 * tasks the ends free room for, at a resource's the task first in claim order that now fits, at
 * the global limit every slot they free. An adaptive group made between ticks still gets the
 * ends under the claim lock; ends that fail after the claim committed fail the tick, give its
 * tasks back, and are written by the next. Real PostgreSQL (pg-backend.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgInSchema,
  pgLocation,
} from '../conformance/pg-backend.ts';
import { A, claim, done, LEASE_MS, tasks } from '../conformance/shapes.ts';

const schemas: string[] = [];
afterEach(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s);
});

async function queue(limit: number, n: number) {
  const schema = freshSchemaName('beside');
  schemas.push(schema);
  const store = await openPgStore(pgLocation(schema));
  await store.updateSettings({ globalConcurrency: limit });
  await store.enqueue(tasks(n, { group: 'api' }), 0);
  return { schema, store };
}

const sql = (schema: string, text: string) => pgInSchema(schema, (c) => c.query(text));
const value = (schema: string, text: string) =>
  pgInSchema(schema, async (c) => Number((await c.query<{ v: number }>(text)).rows[0]!.v));

const tickAt = (now: number, more: { finishes: ReturnType<typeof done>[]; claimMax: number }) => ({
  now: () => now,
  worker: A,
  leaseMs: LEASE_MS,
  ...more,
});

describe.skipIf(!pgAvailable)('ends written beside the claim on PostgreSQL', () => {
  it('refill, at the global limit, every slot they free in the same tick', async () => {
    const { store } = await queue(100, 300);
    const first = await claim(store, A, 100, 10);
    const out = await store.tick(tickAt(20, { finishes: first.map((c) => done(c)), claimMax: 100 }));
    expect(out.applied).toHaveLength(100);
    expect(out.claimed).toHaveLength(100);
    expect(out.claimed.some((c) => first.some((f) => f.task.id === c.task.id))).toBe(false);
    // and the limit holds: 100 running
    expect(await claim(store, A, 100, 30)).toHaveLength(0);
    expect((await store.stats(0, 0)).counts).toMatchObject({ done: 100, running: 100, pending: 100 });
    await store.close();
  });

  it("give a group's freed room to its better tasks, not to another group's worse ones", async () => {
    const { store } = await queue(100_000, 0);
    await store.updateGroup('a', { concurrency: 100 });
    await store.enqueue(tasks(100, { group: 'a', priority: 1 }, 'a-first'), 0);
    const running = await claim(store, A, 100, 10);
    await store.enqueue(tasks(100, { group: 'a', priority: 1 }, 'a-urgent'), 0);
    await store.enqueue(tasks(100, { group: 'b', priority: 9 }, 'b-later'), 0);
    const out = await store.tick(tickAt(20, { finishes: running.map((c) => done(c)), claimMax: 100 }));
    expect(out.applied).toHaveLength(100);
    expect(out.claimed.map((c) => c.task.name).filter((n) => n.startsWith('a-urgent'))).toHaveLength(100);
    await store.close();
  });

  it('give a resource they free to the task first in claim order that now fits', async () => {
    const { schema, store } = await queue(100_000, 0);
    await store.setResource('r', 200);
    await store.enqueue(tasks(150, { uses: [{ resource: 'r', weight: 1 }] }, 'light'), 0);
    const running = await claim(store, A, 150, 10);
    const [heavy] = await store.enqueue(tasks(1, { uses: [{ resource: 'r', weight: 150 }] }, 'heavy'), 0);
    await store.enqueue(tasks(100, { uses: [{ resource: 'r', weight: 1 }] }, 'more'), 0);
    const out = await store.tick(
      tickAt(20, { finishes: running.slice(0, 100).map((c) => done(c)), claimMax: 200 }),
    );
    expect(out.applied).toHaveLength(100);
    expect(out.claimed.map((c) => c.task.name)).toContain(heavy!.task.name);
    // and it was not counted as passed over on the way
    expect(await value(schema, `SELECT resource_waits AS v FROM tasks WHERE id = ${heavy!.task.id}`)).toBe(0);
    await store.close();
  });

  it('go under the claim lock once an adaptive group appears between ticks', async () => {
    const { store } = await queue(1000, 300);
    const a = await claim(store, A, 100, 10);
    const b = await store.tick(tickAt(20, { finishes: a.map((c) => done(c)), claimMax: 100 }));
    expect(b.applied).toHaveLength(100);
    // its own limits (a rate cap by default) decide what is claimed from now on
    await store.updateGroup('api', { adaptive: true });
    const c = await store.tick(tickAt(30, { finishes: b.claimed.map((x) => done(x)), claimMax: 100 }));
    expect(c.applied).toHaveLength(100);
    expect(c.claimed.length).toBeGreaterThan(0);
    const seen = [...a, ...b.claimed, ...c.claimed].map((x) => x.task.id);
    expect(new Set(seen).size).toBe(seen.length);
    const d = await store.tick(tickAt(40, { finishes: c.claimed.map((x) => done(x)), claimMax: 0 }));
    expect(d.applied).toHaveLength(c.claimed.length);
    expect((await store.stats(0, 0)).counts).toMatchObject({ done: 200 + c.claimed.length, running: 0 });
    await store.close();
  });

  it('fail the tick when they fail after its claim committed, giving its tasks back', async () => {
    const { schema, store } = await queue(1000, 300);
    const running = await claim(store, A, 100, 10);
    // An attempt's output the database refuses: the ends' statement fails, the claim does not.
    await sql(schema, "ALTER TABLE history ADD CONSTRAINT no_boom CHECK (output IS DISTINCT FROM 'boom')");
    const finishes = running.map((c, i) => done(c, null, i === 50 ? 'boom' : null));
    await expect(store.tick(tickAt(20, { finishes, claimMax: 10 }))).rejects.toThrow(/no_boom/);
    // the ten it claimed are waiting again, their attempt given back
    expect((await store.stats(0, 0)).counts).toMatchObject({ done: 0, running: 100, pending: 200 });
    expect(
      await value(schema, "SELECT count(*)::int AS v FROM tasks WHERE status = 'pending' AND attempts > 0"),
    ).toBe(0);
    await sql(schema, 'ALTER TABLE history DROP CONSTRAINT no_boom');
    const again = await store.tick(tickAt(30, { finishes, claimMax: 0 }));
    expect(again.applied).toHaveLength(100);
    expect((await store.renewLeases(A, [], 20 + LEASE_MS + 1, LEASE_MS)).strays).toEqual([]);
    expect((await store.stats(0, 0)).counts).toMatchObject({ done: 100, running: 0, pending: 200 });
    await store.close();
  });

  it('report ends written under the lock once an adaptive group appeared, when the claim after fails', async () => {
    const { store } = await queue(1000, 400);
    const a = await claim(store, A, 100, 10);
    const b = await store.tick(tickAt(20, { finishes: a.map((c) => done(c)), claimMax: 100 }));
    expect(b.applied).toHaveLength(100);
    await store.updateGroup('api', { adaptive: true, concurrency: 1000 });
    let calls = 0;
    const finishes = b.claimed.map((c) => done(c));
    await expect(
      store.tick({
        ...tickAt(30, { finishes, claimMax: 100 }),
        gates: () => {
          if (++calls > 1) throw new Error('the second claim failed');
          return { queueClosed: false, closedGroups: new Set<string>() };
        },
      }),
    ).rejects.toThrow('the second claim failed');
    // written by the failed tick under the lock: reported by the next, not written again
    const again = await store.tick(tickAt(40, { finishes, claimMax: 0 }));
    expect(again.applied).toHaveLength(100);
    expect((await store.stats(0, 0)).counts).toMatchObject({ done: 200 });
    await store.close();
  });
});
