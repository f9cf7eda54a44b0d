/**
 * Queue files prepared before a measurement, so the measured process opens a file that already
 * holds its tasks (as a worker started on an existing queue does) and the enqueue cost stays out
 * of the figure. Small files go through each library's own enqueue API; the large "already in
 * the file" backgrounds of the scale scenario are written with one SQL statement per table into
 * each library's own schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { better, defineQueue } from 'plainjob';
import { createEngine } from '../../electron/core/engine.ts';
import { parseTaskSpecNow } from '../../shared/task-spec-now.ts';
import { probeHandler } from './peers/probe.ts';

export const NOOP_SPEC = { kind: 'sleep', payload: { ms: 0 } } as const;
export const PJ_TYPE = 'bench';
const BATCH = 5000;

export const silentPjLogger = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };

/** Leaves the file as one self-contained main file (WAL checkpointed away), ready to copy. */
function checkpoint(file: string): void {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

export interface SemaforoFileOptions {
  /** pending no-op (`sleep` 0) tasks, written with engine.enqueueMany */
  ready?: number;
  /** groups to spread the ready tasks over (round robin); default all in `default` */
  groups?: string[];
  globalConcurrency?: number;
  groupLimits?: { concurrency?: number; rate?: { limit: number; periodMs: number } };
  /** finished and delayed tasks written by SQL first (see semaforoBackground) */
  background?: number;
  /** the spec of the ready tasks (default: sleep 0) */
  spec?: { kind: string; payload: object };
}

export async function semaforoFile(dir: string, name: string, o: SemaforoFileOptions): Promise<string> {
  const file = path.join(dir, name);
  const engine = await createEngine({ file });
  await engine.updateSettings({ globalConcurrency: o.globalConcurrency ?? 10_000 });
  await engine.close();
  if (o.background) semaforoBackground(file, o.background);
  const e = await createEngine({ file, handlers: [probeHandler] });
  const spec = o.spec ?? NOOP_SPEC;
  const groups = o.groups ?? ['default'];
  if (o.groupLimits) for (const g of groups) await e.updateGroup(g, o.groupLimits);
  const ready = o.ready ?? 0;
  let k = 0;
  for (let i = 0; i < ready; i += BATCH) {
    const n = Math.min(BATCH, ready - i);
    await e.enqueueMany(
      Array.from({ length: n }, () => parseTaskSpecNow({ ...spec, group: groups[k++ % groups.length] })),
    );
  }
  // A read moves the enqueued rows from the inbox into tasks (see inbox.ts): the file is then as
  // a queue that a worker has seen holds it, and the measured worker does not pay for the move.
  await e.stats(0);
  await e.close();
  checkpoint(file);
  return file;
}

/**
 * `n` tasks as a long-lived file holds them, with their history: 5/8 done, 1/8 failed, 1/8
 * cancelled, 1/8 pending but delayed by a day (so they sit in the ready index without being
 * due). Names vary so a search has something to match.
 */
export function semaforoBackground(file: string, n: number): void {
  const db = new Database(file);
  const now = Date.now();
  db.transaction(() => {
    db.prepare(
      `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < @n)
       INSERT INTO tasks (kind, name, group_name, priority, payload, status, attempts, max_attempts,
         run_at, created_at, started_at, finished_at, error, result)
       SELECT 'sleep', 'report ' || (i % 977), 'default', 5, '{"ms":0}',
         CASE i % 8 WHEN 5 THEN 'failed' WHEN 6 THEN 'cancelled' WHEN 7 THEN 'pending' ELSE 'done' END,
         CASE WHEN i % 8 IN (6, 7) THEN 0 ELSE 1 END, 3,
         CASE WHEN i % 8 = 7 THEN @now + 86400000 ELSE @t0 + i END,
         @t0 + i,
         CASE WHEN i % 8 IN (6, 7) THEN NULL ELSE @t0 + i END,
         CASE WHEN i % 8 = 7 THEN NULL ELSE @t0 + i + 1 END,
         CASE i % 8 WHEN 5 THEN 'boom' WHEN 6 THEN 'cancelled by the user' ELSE NULL END,
         CASE WHEN i % 8 < 5 THEN 'null' ELSE NULL END
       FROM c`,
    ).run({ n, now, t0: now - 7 * 86400_000 });
    // Rows written by SQL bypass the store, which keeps the per-group counters: rebuild them.
    db.exec(
      `INSERT OR IGNORE INTO groups (name) SELECT DISTINCT group_name FROM tasks;
       DELETE FROM counts;
       INSERT INTO counts (group_name, status, n) SELECT group_name, status, count(*) FROM tasks GROUP BY 1, 2;
       -- and they took ids the inbox would hand out again: move its sequence past them
       INSERT INTO inbox (id, n, tasks, created_at) SELECT max(id), 0, NULL, 0 FROM tasks`,
    );
    db.exec(
      `INSERT INTO history (task_id, type, attempt, started_at, ended_at, outcome, error, worker)
       SELECT id, 'attempt', 1, started_at, finished_at, CASE status WHEN 'done' THEN 'done' ELSE 'failed' END,
         error, 'bench@host:1:0'
       FROM tasks WHERE status IN ('done', 'failed')`,
    );
  })();
  db.close();
}

export interface PlainjobFileOptions {
  ready?: number;
  background?: number;
}

export function plainjobFile(dir: string, name: string, o: PlainjobFileOptions): string {
  const file = path.join(dir, name);
  const db = new Database(file);
  const queue = defineQueue({ connection: better(db), logger: silentPjLogger });
  if (o.background) plainjobBackground(db, o.background);
  const ready = o.ready ?? 0;
  for (let i = 0; i < ready; i += BATCH) {
    const n = Math.min(BATCH, ready - i);
    queue.addMany(
      PJ_TYPE,
      Array.from({ length: n }, () => ({ ms: 0 })),
    );
  }
  queue.close();
  checkpoint(file);
  return file;
}

/** The same mix as semaforoBackground, in plainjob's table (status 0 pending, 2 done, 3 failed). */
function plainjobBackground(db: Database.Database, n: number): void {
  const now = Date.now();
  db.transaction(() => {
    db.prepare(
      `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < @n)
       INSERT INTO plainjob_jobs (type, data, status, failed_at, error, next_run_at, created_at)
       SELECT @type, '{"ms":0}',
         CASE WHEN i % 8 IN (5, 6) THEN 3 WHEN i % 8 = 7 THEN 0 ELSE 2 END,
         CASE WHEN i % 8 IN (5, 6) THEN @t0 + i ELSE NULL END,
         CASE WHEN i % 8 IN (5, 6) THEN 'boom' ELSE NULL END,
         CASE WHEN i % 8 = 7 THEN @now + 86400000 ELSE @t0 + i END,
         @t0 + i
       FROM c`,
    ).run({ n, now, t0: now - 7 * 86400_000, type: PJ_TYPE });
  })();
}

export function fileSizeMb(file: string): number {
  return fs.statSync(file).size / 1024 / 1024;
}
