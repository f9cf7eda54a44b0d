/**
 * SIGKILL a worker process at each point of a task's life (fixtures/crash-worker.ts kills itself
 * there), then recover with another worker, and check what a user relies on after a crash:
 * - every enqueued task is there exactly once, and none stays running;
 * - each task's attempt history is whole: attempts 1..n, one row each, all closed, the killed
 *   attempt marked `lost`, the task's attempt count equal to n;
 * - a task runs again only after a lost lease (never twice in one attempt, never after it was
 *   recorded done), and a kill inside a transaction leaves no trace of it;
 * - the file passes `PRAGMA integrity_check` and its trigger-kept counters match the rows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Engine } from '../../electron/core/engine.ts';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import { spawnNode, tempDir, testEngine, waitFor } from '../helpers.ts';
import { readJsonLines } from '../core/fixtures/probe.ts';
import { checkFile } from './fixtures/file-checks.ts';
import { seededRandom } from './fixtures/seeded.ts';
import type { ChildProcess } from 'node:child_process';

const WORKER = path.join(import.meta.dirname, 'fixtures', 'crash-worker.ts');
const TASKS = 4;

interface Run {
  ev: 'start' | 'end';
  id: number;
  attempt: number;
  pid: number;
}

const readRuns = (log: string): Run[] => readJsonLines<Run>(log);

// The "random" kill moments replay from SEMAFORO_SEED (in the describe name).
const SEED = Number(process.env.SEMAFORO_SEED ?? Date.now() % 2 ** 31);
const random = seededRandom(SEED);

/** The recovering worker: same kind, same run log. */
function recoverer(file: string, log: string): Promise<Engine> {
  const crashy = defineHandler({
    kind: 'crashy',
    description: '',
    payload: z.object({ ms: z.number() }),
    run: async (_p, { task, attempt }) => {
      for (const ev of ['start', 'end'] as const)
        fs.appendFileSync(log, JSON.stringify({ ev, id: task.id, attempt, pid: process.pid }) + '\n');
      return 'ok';
    },
  });
  return testEngine({ file, handlers: [crashy], reapIntervalMs: 50, leaseMs: 400 });
}

/** Resolves once the child exited and its output was read to the end. */
function closed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    if (child.stdout?.readableEnded !== false) return Promise.resolve();
  }
  return new Promise((resolve) => child.once('close', () => resolve()));
}

async function killedBySelf(child: ChildProcess) {
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGTERM'), 15_000);
  await closed(child);
  clearTimeout(timer);
  expect(child.signalCode, `the worker should have killed itself; stderr: ${stderr}`).toBe('SIGKILL');
}

interface Case {
  point: string;
  /** handler duration in the child */
  ms?: number;
  remote?: boolean;
  /** did the kill leave leases behind (attempts to be marked lost)? */
  lost: boolean;
  /** did any handler start in the child before the kill? */
  childRan: boolean;
}

async function crashAt(c: Case) {
  const dir = tempDir();
  const file = path.join(dir, 'q.db');
  const log = path.join(dir, 'runs.jsonl');
  const setup = await recoverer(file, log);
  // Two at a time (a limit in the file), so a kill can find some tasks done and some running.
  await setup.updateSettings({ globalConcurrency: 2 });
  const ids = (
    await setup.enqueueMany(
      Array.from({ length: TASKS }, (_, i) => ({
        kind: 'crashy',
        name: `t${i}`,
        payload: { ms: c.ms ?? 20 },
      })),
    )
  ).map((r) => r.task.id);
  await setup.close();

  const child = spawnNode([WORKER, file, c.point, log, ...(c.remote ? ['remote'] : [])]);
  await killedBySelf(child);
  checkFile(file);
  const childRuns = readRuns(log);
  expect(childRuns.length > 0).toBe(c.childRan);

  const engine = await recoverer(file, log);
  const stuck = (await engine.listTasks({ status: ['running'] })).tasks;
  const doneInChild = (await engine.listTasks({ status: ['done'] })).tasks.map((t) => t.id);
  expect(stuck.length > 0).toBe(c.lost);
  // The kill left exactly one open attempt row per leased task, and none elsewhere.
  for (const id of ids) {
    const t = await engine.getTask(id);
    const open = t.history.filter((h) => h.type === 'attempt' && h.endedAt === null);
    if (t.status === 'running') {
      expect(open.map((h) => h.attempt)).toEqual([t.attempts]);
    } else expect(open).toEqual([]);
  }
  const lostIds = new Set(stuck.map((t) => t.id));

  engine.start();
  await waitFor(
    async () => (await engine.listTasks({ status: ['done'] })).total === ids.length,
    'every task to finish',
  );
  const all = await engine.listTasks({ limit: 1000 });
  expect(all.total).toBe(ids.length);
  expect(all.tasks.map((t) => t.id).sort((a, b) => a - b)).toEqual(ids);
  expect(new Set(all.tasks.map((t) => t.name)).size).toBe(ids.length);
  expect((await engine.listTasks({ status: ['running'] })).total).toBe(0);

  const runs = readRuns(log);
  for (const id of ids) {
    const t = await engine.getTask(id);
    expect(t.leaseOwner).toBeNull();
    const attempts = t.history.filter((h) => h.type === 'attempt');
    const lost = lostIds.has(id) ? 1 : 0;
    expect(
      attempts.map((h) => h.outcome),
      `task ${id}`,
    ).toEqual([...Array<string>(lost).fill('lost'), 'done']);
    expect(attempts.map((h) => h.attempt)).toEqual(attempts.map((_, i) => i + 1));
    expect(t.attempts).toBe(attempts.length);
    for (const h of attempts) expect(h.endedAt).toBeGreaterThanOrEqual(h.startedAt);
    if (lost) expect(attempts[0]!.error).toMatch(/lease lost/);
    // At least once, and again only after a lost lease: each attempt started its handler at most
    // once, the done attempt exactly once, and every earlier run belongs to a lost attempt.
    const mine = runs.filter((r) => r.id === id && r.ev === 'start');
    expect(new Set(mine.map((r) => r.attempt)).size).toBe(mine.length);
    expect(mine.filter((r) => r.attempt === t.attempts)).toHaveLength(1);
    for (const r of mine) if (r.attempt < t.attempts) expect(attempts[r.attempt - 1]!.outcome).toBe('lost');
  }
  await engine.close();
  checkFile(file);
  return { lostIds, childRuns, doneInChild };
}

describe('crash matrix: SIGKILL at each point of a task life', () => {
  it('just after a claim committed: the leased tasks come back, their handlers never ran there', async () => {
    const { lostIds, childRuns } = await crashAt({ point: 'after-claim', lost: true, childRan: false });
    expect(lostIds.size).toBe(2); // one claim of two (global concurrency 2)
    expect(childRuns).toEqual([]);
  });

  it('after the second claim: what finished before stays done and does not run again', async () => {
    // (the checks in crashAt make sure those tasks ran exactly once)
    const { lostIds, doneInChild } = await crashAt({
      point: 'after-second-claim',
      lost: true,
      childRan: true,
    });
    expect(doneInChild.length).toBeGreaterThan(0);
    for (const id of doneInChild) expect(lostIds.has(id)).toBe(false);
  });

  it('inside the claim transaction: nothing of the claim remains', () =>
    crashAt({ point: 'in-claim-txn', lost: false, childRan: false }));

  it('in the middle of the handler', () => crashAt({ point: 'in-handler', lost: true, childRan: true }));

  it('inside a lease renewal', () => crashAt({ point: 'in-renew-txn', ms: 300, lost: true, childRan: true }));

  it('after the handler returned, before its result was written: it runs again, once', async () => {
    const { lostIds, childRuns } = await crashAt({ point: 'before-finish', lost: true, childRan: true });
    // The handler completed in the dead worker, but the result was never written: a lost attempt.
    for (const r of childRuns.filter((x) => x.ev === 'end')) expect(lostIds.has(r.id)).toBe(true);
  });

  it('inside the finish transaction: the half-written finish is not there', () =>
    crashAt({ point: 'in-finish-txn', lost: true, childRan: true }));

  it('on another host (no pid check possible): the leases expire', () =>
    crashAt({ point: 'in-handler', remote: true, lost: true, childRan: true }));
});

/** Rows per batch name prefix `bN`. */
function batches(file: string): Map<number, number> {
  const s = new SqliteTaskStore(file);
  try {
    s.stats(0, 0); // moves what waits in the inbox into tasks, as any reader does
    const rows = s.db
      .prepare<[], { b: number; n: number; names: number }>(
        `SELECT CAST(substr(name, 2, instr(name, '-') - 2) AS INTEGER) AS b, count(*) AS n,
           count(DISTINCT name) AS names FROM tasks GROUP BY b ORDER BY b`,
      )
      .all();
    for (const r of rows) expect(r.names).toBe(r.n);
    return new Map(rows.map((r) => [r.b, r.n]));
  } finally {
    s.close();
  }
}

/** The batches present are 0..k-1, each whole; then the file takes new work. */
async function expectWholeBatches(file: string, reported: number) {
  checkFile(file);
  const found = batches(file);
  const k = found.size;
  expect([...found.keys()]).toEqual(Array.from({ length: k }, (_, i) => i));
  for (const [b, n] of found) expect(n, `batch ${b}`).toBe(5000);
  // Every batch reported committed is there; at most one more committed before the kill.
  expect(k).toBeGreaterThanOrEqual(reported);
  expect(k).toBeLessThanOrEqual(reported + 1);
  const engine = await testEngine({ file });
  await engine.enqueueMany([{ kind: 'sleep', payload: { ms: 0 } }]);
  expect((await engine.stats()).counts.pending).toBe(k * 5000 + 1);
  await engine.close();
  return k;
}

describe(`crash matrix: SIGKILL during a batch enqueue (SEMAFORO_SEED=${SEED})`, () => {
  it('killed at random moments: every batch is all or nothing', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = tempDir();
      const file = path.join(dir, 'q.db');
      await (await testEngine({ file })).close(); // the schema exists before the child starts
      const child = spawnNode([WORKER, file, 'enqueue', path.join(dir, 'runs.jsonl')]);
      let reported = 0;
      // After the first batch, kill at a random moment (a batch takes some tens of ms).
      const delay = Math.floor(random() * 80);
      await new Promise<void>((resolve) => {
        child.stdout!.on('data', (d: Buffer) => {
          const before = reported;
          reported += (d.toString().match(/batch/g) ?? []).length;
          if (before === 0 && reported > 0) {
            setTimeout(() => {
              child.kill('SIGKILL');
              resolve();
            }, delay);
          }
        });
      });
      await closed(child);
      await expectWholeBatches(file, reported);
    }
  });

  it('killed between two rows while a batch moves into tasks: the batch is there once, whole', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'q.db');
    await (await testEngine({ file })).close();
    const row = 1 + Math.floor(random() * 4998);
    const child = spawnNode([WORKER, file, `enqueue-txn:2:${row}`, path.join(dir, 'runs.jsonl')]);
    let reported = 0;
    child.stdout!.on('data', (d: Buffer) => (reported += (d.toString().match(/batch/g) ?? []).length));
    await killedBySelf(child);
    expect(reported).toBe(2);
    // Batch 2 was appended (its enqueue returned) and then killed halfway into tasks: the move
    // rolled back, the appended row stayed, and the next reader moved it in.
    expect(await expectWholeBatches(file, reported)).toBe(3);
  });
});
