/**
 * Worker processes sharing one PostgreSQL queue: the limits hold between them, judged from the
 * handlers' own timestamps, and a cut of every connection mid-run (pg_terminate_backend) loses
 * nothing and runs nothing twice. Same fixtures as the SQLite file's multiprocess.test.ts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../electron/core/engine.ts';
import { openStore } from '../../electron/core/store/open-store.ts';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgLocation,
  PG_TEST_URL,
} from '../conformance/pg-backend.ts';
import { exited, spawnNode, spawnReady, tempDir, waitFor } from '../helpers.ts';
import { peakOverlap, probeHandler, readProbeLog as readLog, runIntervals } from './fixtures/probe.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const WORKER = path.join(FIXTURES, 'worker.ts');
const schemas: string[] = [];

afterEach(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s);
});

function queue(): string {
  const schema = freshSchemaName('multi');
  schemas.push(schema);
  return pgLocation(schema);
}

function controller(db: string) {
  return createEngine({ file: db, handlers: [probeHandler('/dev/null', 'controller')] });
}

const startWorker = (db: string, log: string, label: string, env: Record<string, string> = {}) =>
  spawnReady([WORKER, db, log, label], env);

/** Ends every server connection of the queue's schema but the caller's; how many it ended. */
async function cutConnections(schema: string): Promise<number> {
  const c = new pg.Client({ connectionString: PG_TEST_URL });
  await c.connect();
  try {
    const r = await c.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = $1 AND pid <> pg_backend_pid()`,
      [`semaforo ${schema}`],
    );
    return r.rowCount ?? 0;
  } finally {
    await c.end();
  }
}

describe.skipIf(!pgAvailable)('worker processes on one PostgreSQL queue', () => {
  it('never exceed a group concurrency limit or a rate limit between them', async () => {
    const db = queue();
    const log = path.join(tempDir(), 'log.jsonl');
    const c = await controller(db);
    await c.updateSettings({ globalConcurrency: 10 });
    await c.updateGroup('one', { concurrency: 1 });
    await c.updateGroup('rated', { rate: { limit: 4, periodMs: 500 } });
    // Two gate tasks go first, each waiting until both started: each process takes one.
    await c.enqueueMany([
      ...Array.from({ length: 2 }, () => ({
        kind: 'probe',
        group: 'gate',
        priority: 0,
        payload: { ms: 0, gate: 2 },
      })),
      ...Array.from({ length: 12 }, () => ({ kind: 'probe', group: 'one', payload: { ms: 30 } })),
      ...Array.from({ length: 12 }, () => ({ kind: 'probe', group: 'rated', payload: { ms: 5 } })),
    ]);
    const a = await startWorker(db, log, 'A', { MAX_IN_FLIGHT: '1' });
    const b = await startWorker(db, log, 'B', { MAX_IN_FLIGHT: '1' });
    await waitFor(async () => (await c.stats()).counts.done === 26, '26 done', 60_000);
    const lines = readLog(log);
    expect(new Set(lines.filter((l) => l.group === 'gate').map((l) => l.pid)).size).toBe(2);
    expect(peakOverlap(runIntervals(lines.filter((l) => l.group === 'one')))).toBe(1);
    // The rate limit governs claims: each claim's time is in the attempt history the workers
    // wrote (a handler starts a few ms after its claim, more or less in each process).
    const ratedTasks = (await c.listTasks({ group: 'rated', limit: 100 })).tasks;
    const rated = (await Promise.all(ratedTasks.map((t) => c.getTask(t.id))))
      .flatMap((t) => t.history.map((h) => h.startedAt))
      .sort((x, y) => x - y);
    expect(rated).toHaveLength(12);
    for (let i = 4; i < rated.length; i++) expect(rated[i]! - rated[i - 4]!).toBeGreaterThanOrEqual(500);
    a.kill('SIGTERM');
    b.kill('SIGTERM');
    expect(await exited(a)).toBe(0);
    expect(await exited(b)).toBe(0);
    await c.close();
  });

  it('loses nothing and runs nothing twice when every connection is cut mid-run', async () => {
    const db = queue();
    const schema = schemas.at(-1)!;
    const log = path.join(tempDir(), 'log.jsonl');
    const c = await controller(db);
    await c.updateSettings({ globalConcurrency: 6 });
    await c.updateGroup('one', { concurrency: 2 });
    await c.enqueueMany(
      Array.from({ length: 120 }, (_, i) => ({
        kind: 'probe',
        group: i % 2 ? 'one' : 'any',
        payload: { ms: 10 },
      })),
    );
    const a = await startWorker(db, log, 'A');
    const b = await startWorker(db, log, 'B');
    let errs = '';
    a.stderr?.on('data', (d) => (errs += `A: ${String(d)}`));
    b.stderr?.on('data', (d) => (errs += `B: ${String(d)}`));
    await waitFor(() => readLog(log).filter((l) => l.ev === 'end').length >= 20, '20 runs');
    // Between two cuts the processes may not have connected again yet: cut once they have.
    const cut = () => waitFor(async () => (await cutConnections(schema)) > 0, 'connections to cut');
    await cut();
    await waitFor(() => readLog(log).filter((l) => l.ev === 'end').length >= 60, '60 runs');
    await cut();
    // The controller's own connections are cut too: a read that fails then is asked again.
    await waitFor(async () => (await c.stats().catch(() => null))?.counts.done === 120, '120 done', 90_000);
    const lines = readLog(log);
    // Each task ran once: no second start, so none ran twice at once either.
    const starts = lines.filter((l) => l.ev === 'start');
    expect(new Set(starts.map((l) => l.id)).size).toBe(120);
    expect(starts).toHaveLength(120);
    expect(peakOverlap(runIntervals(lines.filter((l) => l.group === 'one')))).toBeLessThanOrEqual(2);
    expect(peakOverlap(runIntervals(lines))).toBeLessThanOrEqual(6);
    a.kill('SIGTERM');
    b.kill('SIGTERM');
    // their stderr shown if one did not stop cleanly
    const codes = [await exited(a), await exited(b)];
    if (codes.some((code) => code !== 0)) throw new Error(`workers exited ${codes.join(', ')}:\n${errs}`);
    await c.close();
  });

  it('returns the task of a SIGKILLed worker to the queue, and it finishes once in another', async () => {
    const db = queue();
    const log = path.join(tempDir(), 'log.jsonl');
    const c = await controller(db);
    const { task } = await c.enqueue({ kind: 'probe', payload: { ms: 1500 } });
    const victim = await startWorker(db, log, 'victim', { LEASE_MS: '3000' });
    await waitFor(() => readLog(log).some((l) => l.ev === 'start'), 'the victim started the task');
    victim.kill('SIGKILL');
    await exited(victim);
    expect((await c.getTask(task.id))?.status).toBe('running');
    const rescuer = await startWorker(db, log, 'rescuer', { LEASE_MS: '3000' });
    const t = await waitFor(
      async () => {
        const now = await c.getTask(task.id);
        return now?.status === 'done' && now;
      },
      'done',
      30_000,
    );
    const lines = readLog(log);
    expect(lines.filter((l) => l.ev === 'start')).toHaveLength(2);
    expect(lines.filter((l) => l.ev === 'end')).toHaveLength(1);
    expect(t.attempts).toBe(2);
    expect(t.result).toEqual({ by: 'rescuer' });
    expect(t.history.map((h) => h.outcome)).toEqual(['lost', 'done']);
    rescuer.kill('SIGTERM');
    expect(await exited(rescuer)).toBe(0);
    await c.close();
  });
  it('frees the claim lock of a host stopped mid-tick within seconds', { timeout: 45_000 }, async () => {
    const db = queue();
    const c = await controller(db);
    await c.enqueue({ kind: 'probe', payload: { ms: 0 } });
    const frozen = spawnNode([path.join(FIXTURES, 'stop-in-tick.ts'), db]);
    let out = '';
    frozen.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('locked'), 'the stopped host to hold the claim lock', 30_000);
    const store = await openStore(db);
    const started = Date.now();
    const tick = await store.tick({
      now: () => Date.now(),
      worker: { id: 'awake', pid: process.pid, host: 'awake' },
      leaseMs: 30_000,
      finishes: [],
      claimMax: 1,
    });
    // The server ends the stopped host's idle transaction (5 s), not after a minute.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(tick.claimed).toHaveLength(1);
    frozen.kill('SIGKILL');
    await exited(frozen);
    await store.close();
    await c.close();
  });
});
