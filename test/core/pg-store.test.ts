/**
 * What the PostgreSQL store promises beyond the conformance suite: a watcher that hears commits
 * again after its connection is cut, queues in one database kept apart by their schema, limits
 * that hold when one host's clock runs minutes ahead, and a schema made once by processes that
 * start together. Real PostgreSQL (test/conformance/pg-backend.ts says where, or skips).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { SchemaTooNewError, StorageError } from '../../electron/core/errors.ts';
import { openPgStore, type PgStoreOptions } from '../../electron/core/store/postgres/pg-store.ts';
import { LATEST_PG_SCHEMA_VERSION } from '../../electron/core/store/postgres/migrations.ts';
import { SCHEMA_V1 as PG_SCHEMA_V1 } from '../../electron/core/store/postgres/schema.ts';
import { SCHEMA_V2 as PG_SCHEMA_V2 } from '../../electron/core/store/postgres/schema-v2.ts';
import { SCHEMA_V3 as PG_SCHEMA_V3 } from '../../electron/core/store/postgres/schema-v3.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgLocation,
  pgAdmin as admin,
} from '../conformance/pg-backend.ts';
import { A, B, claim, ended, LEASE_MS, task, tasks } from '../conformance/shapes.ts';
import { waitFor } from '../helpers.ts';

const stores: TaskStore[] = [];
const schemas: string[] = [];

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const name of schemas.splice(0)) await dropSchema(name);
});

function newSchema(): string {
  const name = freshSchemaName('pgstore');
  schemas.push(name);
  return name;
}

async function open(schema: string, options: PgStoreOptions = {}): Promise<TaskStore> {
  const s = await openPgStore(pgLocation(schema), options);
  stores.push(s);
  return s;
}

const MINUTES_AHEAD = 5 * 60_000;

describe.skipIf(!pgAvailable)('the PostgreSQL store', () => {
  it('hears commits again after its LISTEN connection is cut, and has the caller read once', async () => {
    const schema = newSchema();
    const errors: string[] = [];
    const watcher = await open(schema, { onBackgroundError: (m) => errors.push(m) });
    const writer = await open(schema);
    let calls = 0;
    watcher.watch(() => calls++);
    await writer.updateSettings({ retentionDays: 9 });
    await waitFor(() => calls === 1, 'the first commit');

    // Every listener of this queue (the watcher's and the writer's) is cut by the server.
    const cut = await admin(async (c) => {
      const r = await c.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`,
        [`LISTEN "semaforo.${schema}"`],
      );
      return r.rowCount;
    });
    expect(cut).toBe(2);
    // Back, it calls once without any commit: what was committed while it was away went unheard.
    await waitFor(() => calls === 2, 'the call after reconnecting');
    await writer.updateSettings({ retentionDays: 8 });
    await waitFor(() => calls === 3, 'a commit after reconnecting');
    expect(errors).toEqual([expect.stringContaining('lost the connection listening for changes')]);
    expect(errors[0]).not.toContain('password');
  });

  it('keeps two queues in one database apart by their schema', async () => {
    const [one, two] = [await open(newSchema()), await open(newSchema())];
    const twoElsewhere = await open(schemas[1]!);
    let heard = 0;
    two.watch(() => heard++);
    await one.enqueue(tasks(3), 0);
    await one.updateSettings({ globalConcurrency: 7 });
    expect((await two.stats(0, 5)).counts.pending).toBe(0);
    expect(await claim(two, A, 10, 10)).toEqual([]);
    expect((await two.settings()).globalConcurrency).not.toBe(7);
    // Only its own queue's commit reaches the watcher of `two`.
    await twoElsewhere.updateSettings({ retentionDays: 3 });
    await waitFor(() => heard >= 1, "the own queue's commit");
    expect(heard).toBe(1);
    expect(await claim(one, A, 10, 10)).toHaveLength(3);
    expect(one.location).toContain(`schema=${schemas[0]}`);
  });

  it('holds a rate limit and a Retry-After cool-down when one host runs minutes ahead', async () => {
    const schema = newSchema();
    const ahead = () => Date.now() + MINUTES_AHEAD;
    const onTime = await open(schema);
    const skewed = await open(schema, { hostClock: ahead });
    await onTime.updateSettings({ globalConcurrency: 50 });
    await onTime.updateGroup('api', { rate: { limit: 2, periodMs: 60_000 }, burst: 2 });
    await onTime.enqueue(tasks(6, { group: 'api' }), 0);

    expect(await claim(onTime, A, 10, Date.now())).toHaveLength(2);
    // By its own clock the on-time host's starts are five minutes old, out of any 60 s window;
    // judged on the database's clock they are not, and nothing more starts.
    const out = await skewed.tick({ now: ahead, worker: B, leaseMs: LEASE_MS, finishes: [], claimMax: 10 });
    expect(out.claimed).toEqual([]);
    // It is told to come back when the window frees, on its own clock.
    expect(out.nextWakeAt).toBeGreaterThan(ahead() + 50_000);
    expect((await onTime.stats(Date.now(), 0)).counts.running).toBe(2);
    // Its overview agrees: the window is full.
    const api = (await skewed.stats(ahead(), 0)).groups.find((g) => g.name === 'api');
    expect(api?.rateUsed).toBe(2);

    // A vendor's Retry-After seen by the on-time host holds for the host ahead too.
    await onTime.updateGroup('vendor', {});
    await onTime.enqueue([task({ name: 'v1', group: 'vendor' }), task({ name: 'v2', group: 'vendor' })], 0);
    const [v1] = await claim(onTime, A, 1, Date.now(), { kinds: ['sleep'] }).then((c) =>
      c.filter((x) => x.task.group === 'vendor'),
    );
    expect(v1).toBeDefined();
    await onTime.tick({
      now: () => Date.now(),
      worker: A,
      leaseMs: LEASE_MS,
      claimMax: 0,
      finishes: [ended(v1!, 'retrying', 'retry-after', { runAt: 0, blockGroupUntil: Date.now() + 30_000 })],
    });
    const later = await skewed.tick({ now: ahead, worker: B, leaseMs: LEASE_MS, finishes: [], claimMax: 10 });
    expect(later.claimed.map((c) => c.task.group)).not.toContain('vendor');
    const vendor = (await skewed.stats(ahead(), 0)).groups.find((g) => g.name === 'vendor');
    expect(vendor?.blockedUntil).toBeGreaterThan(ahead() + 20_000);
  });

  it('holds a one-second rate limit between hosts 900 ms apart', async () => {
    const schema = newSchema();
    const ahead = () => Date.now() + 900;
    const onTime = await open(schema);
    const skewed = await open(schema, { hostClock: ahead });
    await onTime.updateSettings({ globalConcurrency: 50 });
    await onTime.updateGroup('api', { rate: { limit: 5, periodMs: 1000 }, burst: 5 });
    await onTime.enqueue(tasks(20, { group: 'api' }), 0);
    const started = Date.now();
    expect(await claim(onTime, A, 10, started)).toHaveLength(5);
    // Past 100 ms, where a host ahead that took itself for in sync would see them out of its window.
    await waitFor(() => Date.now() - started >= 200, '200 ms after the starts');
    const out = await skewed.tick({ now: ahead, worker: B, leaseMs: LEASE_MS, finishes: [], claimMax: 10 });
    // Only a tick a full second after those starts may take more.
    if (Date.now() - started < 1000) expect(out.claimed).toEqual([]);
  });

  it("warns of a host clock far off the database's, whose due times the others see shifted", async () => {
    const schema = newSchema();
    const heard: string[] = [];
    await open(schema, { onBackgroundError: (m) => heard.push(m) });
    expect(heard).toEqual([]);
    await open(schema, {
      hostClock: () => Date.now() + 10 * 60_000,
      onBackgroundError: (m) => heard.push(m),
    });
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatch(
      /^this host's clock is 600\.\d s ahead of the database's: due times [^\n]+NTP\)$/,
    );
  });

  it('creates the schema once when processes start together, and refuses a newer one', async () => {
    const schema = newSchema();
    const opened = await Promise.all([open(schema), open(schema), open(schema)]);
    await opened[0]!.enqueue(tasks(2), 0);
    expect((await opened[2]!.stats(0, 0)).counts.pending).toBe(2);
    await admin((c) => c.query(`UPDATE ${schema}.schema_version SET version = version + 1`));
    await expect(openPgStore(pgLocation(schema))).rejects.toBeInstanceOf(SchemaTooNewError);
  });

  it('moves a schema 3 queue to schema 4 and on: its gates keep their limits, with no idle condition or pausing', async () => {
    const schema = newSchema();
    await admin(async (c) => {
      await c.query(`CREATE SCHEMA ${schema}`);
      await c.query(`SET search_path TO ${schema}`);
      await c.query(PG_SCHEMA_V1 + PG_SCHEMA_V2 + PG_SCHEMA_V3);
      await c.query('INSERT INTO schema_version (one, version) VALUES (true, 3)');
      await c.query("INSERT INTO gates (scope, max_load, on_ac) VALUES ('backups', 0.8, true)");
    });
    const store = await open(schema);
    expect((await store.stats(0, 0)).gates).toEqual([
      {
        group: 'backups',
        maxLoad: 0.8,
        minFreeMemory: null,
        onAc: true,
        whenIdleMs: null,
        pauseRunning: false,
      },
    ]);
    const [version] = await admin(
      async (c) => (await c.query(`SELECT version::int AS version FROM ${schema}.schema_version`)).rows,
    );
    expect(version).toEqual({ version: LATEST_PG_SCHEMA_VERSION });
  });

  it('takes fractional times (a Retry-After of 1.5 s), waiting no less than asked', async () => {
    const store = await open(newSchema());
    await store.enqueue([task({ name: 'f', group: 'api', runAt: 0.5 })], 0.25);
    const [c] = await claim(store, A, 1, 10.4);
    expect(c!.task.startedAt).toBe(10);
    await store.tick({
      now: () => 20.6,
      worker: A,
      leaseMs: LEASE_MS,
      claimMax: 0,
      finishes: [ended(c!, 'retrying', 'retry-after', { runAt: 1500.5, blockGroupUntil: 1500.5 })],
    });
    expect(await claim(store, A, 1, 1500)).toEqual([]);
    expect(await claim(store, A, 1, 1501)).toHaveLength(1);
  });

  it('stores text PostgreSQL cannot hold (a NUL in output) as U+FFFD instead of failing the tick', async () => {
    const store = await open(newSchema());
    await store.enqueue([task({ name: 'nul\0name', payload: '{"a":"\u0000"}' })], 0);
    const [c] = await claim(store, A, 1, 10);
    expect(c!.task.name).toBe('nul\uFFFDname');
    const out = await store.tick({
      now: () => 20,
      worker: A,
      leaseMs: LEASE_MS,
      claimMax: 0,
      finishes: [ended(c!, 'failed', 'failed', { error: 'bad\0byte', output: 'out\0put' })],
    });
    expect(out.applied).toHaveLength(1);
    const shown = await store.getTask(c!.task.id);
    expect(shown?.error).toBe('bad\uFFFDbyte');
    expect(shown?.history.at(-1)?.output).toBe('out\uFFFDput');
  });

  it('reports an enqueue whose COMMIT went through as done though the connection died during it', async () => {
    const schema = newSchema();
    const store = await open(schema);
    // The commit takes 0.5 s on the server (a deferred trigger), and this side's socket is cut
    // 100 ms into it: the server commits, the client only sees its connection die.
    await admin((c) =>
      c.query(`
        CREATE FUNCTION ${schema}.slow_commit() RETURNS trigger LANGUAGE plpgsql
          AS $$ BEGIN PERFORM pg_sleep(0.5); RETURN NULL; END $$;
        CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON ${schema}.tasks
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${schema}.slow_commit();`),
    );
    const original = pg.Client.prototype.query;
    const patched = function (this: pg.Client, ...args: unknown[]) {
      if (args[0] === 'COMMIT') {
        const socket = (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream;
        setTimeout(() => socket.destroy(), 100);
      }
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
    pg.Client.prototype.query = patched as typeof original;
    let result;
    try {
      result = await store.enqueue([task({ name: 'once' })], 0);
    } finally {
      pg.Client.prototype.query = original;
    }
    expect(result.map((r) => r.created)).toEqual([true]);
    const page = await store.listTasks({});
    expect(page.tasks.map((t) => t.name)).toEqual(['once']);
  });

  it('names the server without its password when it cannot be reached', async () => {
    const err: unknown = await openPgStore('postgres://postgres:s3cret@127.0.0.1:9/test').catch((e) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).condition).toBe('cannot-open');
    expect((err as StorageError).message).toContain('postgres://postgres@127.0.0.1:9/test');
    expect((err as StorageError).message).not.toContain('s3cret');
  });
});
