/**
 * A tick whose many successful ends are written beside its claim, on a second connection
 * (tick-apart.ts): at a limit the slots the ends free are still refilled in the same tick; an
 * adaptive group made between ticks still gets the ends under the claim lock; and ends that fail
 * after the claim committed fail the tick, are written by the next, and leave the claimed tasks
 * as strays for the renewal to give back. Real PostgreSQL (pg-backend.ts).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgLocation,
  PG_TEST_URL,
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

async function sql(schema: string, text: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_TEST_URL });
  await c.connect();
  try {
    await c.query(`SET search_path TO ${schema}`);
    await c.query(text);
  } finally {
    await c.end();
  }
}

/** Waits for `ok` without a fixed sleep: polls until it holds (the test's timeout bounds it). */
async function until(ok: () => Promise<boolean>): Promise<void> {
  while (!(await ok())) await new Promise((r) => setTimeout(r, 10));
}

const tickAt = (now: number, more: { finishes: ReturnType<typeof done>[]; claimMax: number }) => ({
  now: () => now,
  worker: A,
  leaseMs: LEASE_MS,
  ...more,
});

describe.skipIf(!pgAvailable)('ends written beside the claim on PostgreSQL', () => {
  it('refill, at the global limit, every slot they free in the same tick', async () => {
    const { schema, store } = await queue(100, 300);
    const first = await claim(store, A, 100, 10);
    expect(first).toHaveLength(100);
    // The ends are held back (a counts row they must write is taken) until the claim beside them
    // is over: it saw 100 running and took nothing, so the tick must claim again after the ends.
    const blocker = new pg.Client({ connectionString: PG_TEST_URL });
    await blocker.connect();
    await blocker.query(`SET search_path TO ${schema}`);
    await blocker.query('BEGIN');
    await blocker.query("INSERT INTO counts (group_name, status, n) VALUES ('api', 'done', 0)");
    const ticking = store.tick(tickAt(20, { finishes: first.map((c) => done(c)), claimMax: 100 }));
    await until(async () => {
      const r = await blocker.query<{ state: string; wait_event_type: string | null }>(
        'SELECT state, wait_event_type FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
        [`semaforo ${schema}`],
      );
      const waiting = r.rows.filter((x) => x.wait_event_type === 'Lock');
      return waiting.length === 1 && r.rows.every((x) => x === waiting[0] || x.state === 'idle');
    });
    await blocker.query('COMMIT');
    await blocker.end();
    const out = await ticking;
    expect(out.applied).toHaveLength(100);
    expect(out.claimed).toHaveLength(100);
    expect(out.claimed.some((c) => first.some((f) => f.task.id === c.task.id))).toBe(false);
    // and the limit holds: 100 running
    expect(await claim(store, A, 100, 30)).toHaveLength(0);
    expect((await store.stats(0, 0)).counts).toMatchObject({ done: 100, running: 100, pending: 100 });
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

  it('fail the tick when they fail after its claim committed; the next tick writes them', async () => {
    const { schema, store } = await queue(1000, 300);
    const running = await claim(store, A, 100, 10);
    // An attempt's output the database refuses: the ends' statement fails, the claim does not.
    await sql(schema, "ALTER TABLE history ADD CONSTRAINT no_boom CHECK (output IS DISTINCT FROM 'boom')");
    const finishes = running.map((c, i) => done(c, null, i === 50 ? 'boom' : null));
    await expect(store.tick(tickAt(20, { finishes, claimMax: 10 }))).rejects.toThrow(/no_boom/);
    expect((await store.stats(0, 0)).counts).toMatchObject({ done: 0, running: 110 });
    await sql(schema, 'ALTER TABLE history DROP CONSTRAINT no_boom');
    const again = await store.tick(tickAt(30, { finishes, claimMax: 0 }));
    expect(again.applied).toHaveLength(100);
    // The ten the failed tick claimed were never started here: a lease later, strays.
    const renewed = await store.renewLeases(A, [], 20 + LEASE_MS + 1, LEASE_MS);
    expect(renewed.strays).toHaveLength(10);
    expect((await store.stats(0, 0)).counts).toMatchObject({ done: 100, running: 10 });
    await store.close();
  });
});
