/**
 * Many processes on one file: 4 worker processes (test/core/fixtures/worker.ts) and 2 enqueuing
 * processes (fixtures/enqueuer.ts) share one queue file that has group concurrency and rate
 * limits, while workers are SIGKILLed at random moments and restarted. Afterwards the file itself
 * must show:
 * - every task an enqueuer was told is in the queue, exactly once (its id and its unique key), all
 *   done, none running, every attempt closed;
 * - each task completed once; any other run of it belongs to an attempt the history marks `lost`,
 *   and every lost attempt was held by a worker the test killed (at-least-once, explained); no
 *   task ever ran twice at once;
 * - no group ever had more tasks running than its concurrency limit, nor the queue more than the
 *   global one, judged from the handlers' own start/end times (a killed run ends at its kill); no
 *   rate window held more claims than the limit, judged from the attempts' start times;
 * - the WAL stayed small: checkpoints kept up with six processes writing all the time;
 * - `PRAGMA integrity_check` is ok and the trigger-kept counters match the rows.
 *
 * Size: 20,000 tasks and 8 kills by default (15-40 s on a shared, busy 2-core machine).
 * `SEMAFORO_SOAK=1` soaks: 200,000 tasks and 60 kills (several minutes; run it alone:
 * `SEMAFORO_SOAK=1 npx vitest run test/reliability/many-processes.test.ts`).
 * `SEMAFORO_SEED=n` replays a run: the seed fixes the progress points (tasks done) at which a
 * worker is killed, which of the busy workers it is, and everything the enqueuers write; the
 * operating system still decides the exact interleaving. The seed is printed with the figures.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../electron/core/engine.ts';
import { exited, newTaskRow, spawnNode, spawnReady, tempDir, waitFor } from '../helpers.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import {
  busiestWindow,
  peakOverlap,
  probeHandler,
  type ProbeLine,
  readJsonLines,
  readProbeLog,
  runIntervals,
} from '../core/fixtures/probe.ts';
import { checkFile } from './fixtures/file-checks.ts';
import { WAL_SIZE_LIMIT } from '../../electron/core/store/sqlite/open.ts';
import { seededRandom } from './fixtures/seeded.ts';

const SOAK = process.env.SEMAFORO_SOAK === '1';
const SEED = Number(process.env.SEMAFORO_SEED ?? 20261203);
const TASKS = SOAK ? 200_000 : 20_000;
const KILLS = SOAK ? 60 : 8;
const WORKERS = 4;
/** each worker's own cap (`work --concurrency`): three of them are needed to fill the global limit */
const PER_WORKER = 8;
const ENQUEUERS = 2;
/** how long the whole run may take before the test gives up (not a speed claim) */
const BUDGET_MS = SOAK ? 3 * 3600_000 : 90_000;

const GLOBAL_CONCURRENCY = 24;
const LIMITS: Record<string, { concurrency?: number; rate?: { limit: number; periodMs: number } }> = {
  solo: { concurrency: 1 },
  pair: { concurrency: 2 },
  rated: { rate: { limit: 30, periodMs: 100 } },
  both: { concurrency: 2, rate: { limit: 10, periodMs: 50 } },
  free: {},
};
/** share of the tasks in each group (the rated ones sized so their rate does not set the pace) */
const WEIGHTS = { solo: 4, pair: 8, rated: 10, both: 4, free: 74 };

const WORKER = path.join(import.meta.dirname, '../core/fixtures/worker.ts');
const ENQUEUER = path.join(import.meta.dirname, 'fixtures/enqueuer.ts');

interface TaskRow {
  id: number;
  unique_key: string | null;
  status: string;
  attempts: number;
  lease_owner: string | null;
}
interface AttemptRow {
  task_id: number;
  type: string;
  attempt: number;
  outcome: string;
  started_at: number;
  ended_at: number | null;
  worker: string | null;
}

/** The pid inside a worker id (`label@host:pid:random`). */
const pidOf = (workerId: string) => Number(/:(\d+):[0-9a-f]+$/.exec(workerId)?.[1]);

describe('many processes on one file, workers killed at random', () => {
  it(
    `${TASKS} tasks from ${ENQUEUERS} enqueuers through ${WORKERS} workers, ${KILLS} SIGKILLs: nothing lost, re-runs explained, limits held`,
    async () => {
      const began = Date.now();
      const dir = tempDir();
      const db = path.join(dir, 'q.db');
      const log = path.join(dir, 'runs.jsonl');
      const random = seededRandom(SEED);

      const setup = await createEngine({ file: db, handlers: [probeHandler(log, 'setup')] });
      await setup.updateSettings({ globalConcurrency: GLOBAL_CONCURRENCY });
      for (const [g, limits] of Object.entries(LIMITS)) await setup.updateGroup(g, limits);
      await setup.close();
      const file = new Database(db, { readonly: true });
      let walMax = 0;
      /** Tasks done so far (sampling the WAL's size on the way). */
      const done = () => {
        walMax = Math.max(walMax, fs.existsSync(`${db}-wal`) ? fs.statSync(`${db}-wal`).size : 0);
        return file
          .prepare<[], number>("SELECT coalesce(sum(n), 0) FROM counts WHERE status = 'done'")
          .pluck()
          .get()!;
      };
      const leaseHolders = () =>
        new Set(
          file
            .prepare<[], number>("SELECT DISTINCT owner_pid FROM tasks WHERE status = 'running'")
            .pluck()
            .all(),
        );

      let generation = 0;
      const startWorker = (slot: number) =>
        spawnReady([WORKER, db, log, `w${slot}.${generation++}`], { MAX_IN_FLIGHT: String(PER_WORKER) });
      const workers: ChildProcess[] = await Promise.all(
        Array.from({ length: WORKERS }, (_, slot) => startWorker(slot)),
      );

      const acks = Array.from({ length: ENQUEUERS }, (_, e) => path.join(dir, `acks-${e}.jsonl`));
      const perEnqueuer = TASKS / ENQUEUERS;
      const enqueuers = acks.map((ackFile, e) =>
        spawnNode([
          ENQUEUER,
          db,
          `e${e}`,
          String(perEnqueuer),
          String(SEED + 1 + e),
          ackFile,
          JSON.stringify(WEIGHTS),
        ]),
      );
      const enqueued = enqueuers.map((child) => exited(child));

      // The kill plan: at these numbers of tasks done, kill one of the workers holding a lease.
      const plan = Array.from({ length: KILLS }, () => ({
        atDone: Math.floor(TASKS * (0.03 + 0.85 * random())),
        pick: random(),
      })).sort((a, b) => a.atDone - b.atDone);
      const killedAt = new Map<number, number>();
      for (const { atDone, pick } of plan) {
        await waitFor(() => done() >= atDone, `${atDone} tasks done`, BUDGET_MS);
        // A worker that holds leases right now, so the kill takes running work down with it.
        const busy = await waitFor(
          () => {
            const holders = leaseHolders();
            const slots = workers.map((w, slot) => (holders.has(w.pid!) ? slot : -1)).filter((s) => s >= 0);
            return slots.length > 0 && slots;
          },
          'a worker holding a lease',
          BUDGET_MS,
        );
        const slot = busy[Math.floor(pick * busy.length)]!;
        const victim = workers[slot]!;
        // Recorded before the signal: the victim's handlers cannot run past this instant.
        killedAt.set(victim.pid!, Date.now());
        victim.kill('SIGKILL');
        await exited(victim);
        workers[slot] = await startWorker(slot);
      }

      expect(await Promise.all(enqueued)).toEqual(Array<number>(ENQUEUERS).fill(0));
      await waitFor(() => done() === TASKS, `all ${TASKS} tasks done`, BUDGET_MS);
      const ranFor = Date.now() - began;
      for (const w of workers) w.kill('SIGTERM');
      expect(await Promise.all(workers.map((w) => exited(w)))).toEqual(Array<number>(WORKERS).fill(0));

      // ---- From here on, only what is in the file and in the handlers' own log counts. ----
      const tasks = file
        .prepare<[], TaskRow>('SELECT id, unique_key, status, attempts, lease_owner FROM tasks ORDER BY id')
        .all();
      const history = file
        .prepare<[], AttemptRow & { group_name: string }>(
          `SELECT h.task_id, h.type, h.attempt, h.outcome, h.started_at, h.ended_at, h.worker, t.group_name
           FROM history h JOIN tasks t ON t.id = h.task_id ORDER BY h.task_id, h.id`,
        )
        .all();
      file.close();

      // Every acknowledged task is there once, under its own unique key; nothing else is.
      const byId = new Map(tasks.map((t) => [t.id, t]));
      expect(tasks).toHaveLength(TASKS);
      const keys = new Set(tasks.map((t) => t.unique_key));
      expect(keys.size).toBe(TASKS);
      const expectedKeys = acks.flatMap((_, e) =>
        Array.from({ length: perEnqueuer }, (_, i) => `e${e}-${i}`),
      );
      expect(expectedKeys.filter((k) => !keys.has(k))).toEqual([]);
      const wrongAcks: string[] = [];
      let acked = 0;
      for (const [e, ackFile] of acks.entries()) {
        for (const { from, ids } of readJsonLines<{ from: number; ids: number[] }>(ackFile)) {
          ids.forEach((id, i) => {
            if (byId.get(id)?.unique_key !== `e${e}-${from + i}`)
              wrongAcks.push(`e${e}-${from + i} -> ${id}`);
          });
          acked += ids.length;
        }
      }
      expect(wrongAcks).toEqual([]);
      expect(acked).toBe(TASKS);

      // Nothing stuck: all done, no lease left, every attempt closed.
      expect(tasks.filter((t) => t.status !== 'done' || t.lease_owner !== null)).toEqual([]);
      expect(history.filter((h) => h.ended_at === null || h.outcome === 'running')).toEqual([]);

      // Each task: attempts 1..n, all lost but the last, which is done; lost only to a killed worker.
      const attemptsOf = new Map<number, AttemptRow[]>();
      for (const h of history) {
        const list = attemptsOf.get(h.task_id) ?? [];
        list.push(h);
        attemptsOf.set(h.task_id, list);
      }
      const badHistories: string[] = [];
      let lost = 0;
      for (const t of tasks) {
        const list = attemptsOf.get(t.id) ?? [];
        const shape = list.map((h) => `${h.type}#${h.attempt}:${h.outcome}`).join(' ');
        const want = list.map((_, i) => `attempt#${i + 1}:${i < t.attempts - 1 ? 'lost' : 'done'}`).join(' ');
        if (list.length !== t.attempts || shape !== want) badHistories.push(`task ${t.id}: ${shape}`);
        for (const h of list.filter((x) => x.outcome === 'lost')) {
          lost++;
          if (!killedAt.has(pidOf(h.worker!))) badHistories.push(`task ${t.id}: lost by live ${h.worker}`);
        }
      }
      expect(badHistories).toEqual([]);
      expect(lost, 'the kills took running work down').toBeGreaterThan(0);

      // Runs, from the handlers' log: the done attempt ran once, start to end; every other run
      // belongs to a lost attempt and a killed process. No attempt ran twice.
      const runs = readProbeLog(log);
      const starts = runs.filter((r) => r.ev === 'start');
      const ends = runs.filter((r) => r.ev === 'end');
      const badRuns: string[] = [];
      const seen = new Set<string>();
      for (const r of starts) {
        if (seen.has(`${r.id}#${r.attempt}`)) badRuns.push(`task ${r.id} attempt ${r.attempt} ran twice`);
        seen.add(`${r.id}#${r.attempt}`);
      }
      const final = (id: number) => byId.get(id)!.attempts;
      for (const r of [...starts, ...ends]) {
        if (r.attempt === final(r.id)) continue;
        if (attemptsOf.get(r.id)![r.attempt - 1]?.outcome !== 'lost' || !killedAt.has(r.pid))
          badRuns.push(`task ${r.id} ran (${r.ev}) in attempt ${r.attempt} in pid ${r.pid}, not a lost one`);
      }
      // Nothing ran twice at once: a re-run started only once the run before it had ended or its
      // process had been killed.
      const rerun = new Map<number, ProbeLine[]>();
      for (const r of runs) if (final(r.id) > 1) rerun.set(r.id, [...(rerun.get(r.id) ?? []), r]);
      for (const [id, list] of rerun)
        if (peakOverlap(runIntervals(list, (pid) => killedAt.get(pid))) > 1)
          badRuns.push(`task ${id} ran twice at once`);
      expect(badRuns).toEqual([]);
      for (const list of [starts, ends]) {
        const finals = list.filter((r) => r.attempt === final(r.id));
        expect(finals).toHaveLength(TASKS);
        expect(new Set(finals.map((r) => r.id)).size).toBe(TASKS);
      }

      // Limits, from the tasks' own times.
      const intervals = (group?: string) =>
        runIntervals(group === undefined ? runs : runs.filter((r) => r.group === group), (pid) =>
          killedAt.get(pid),
        );
      const peaks: Record<string, number> = { all: peakOverlap(intervals()) };
      expect(peaks.all).toBeLessThanOrEqual(GLOBAL_CONCURRENCY);
      for (const [g, limits] of Object.entries(LIMITS)) {
        peaks[g] = peakOverlap(intervals(g));
        if (limits.concurrency !== undefined) expect(peaks[g], g).toBeLessThanOrEqual(limits.concurrency);
        if (limits.rate !== undefined) {
          // Every claim counts against the rate, lost ones too: all attempts' start times.
          const claims = history.filter((h) => h.group_name === g).map((h) => h.started_at);
          expect(busiestWindow(claims, limits.rate.periodMs), `${g} claims per window`).toBeLessThanOrEqual(
            limits.rate.limit,
          );
        }
      }

      const runsBy: Record<string, number> = {};
      for (const r of starts) runsBy[r.label] = (runsBy[r.label] ?? 0) + 1;
      // Under contention a checkpoint can lag (a reader still on an old snapshot), but it catches
      // up: the WAL does not grow with the number of tasks (without checkpoints it would hold
      // every page written, over 100 MB here).
      expect(walMax).toBeLessThanOrEqual(4 * WAL_SIZE_LIMIT);
      checkFile(db);
      process.stdout.write(
        `many-processes: seed ${SEED}, ${TASKS} tasks, ${killedAt.size} kills, ${lost} lost attempts, ` +
          `${starts.length - TASKS} re-runs, ${ends.length - TASKS} repeated completions (all in killed workers), ` +
          `runs per worker process ${JSON.stringify(Object.values(runsBy))}, ` +
          `peak running ${JSON.stringify(peaks)}, WAL at most ${(walMax / 1024 / 1024).toFixed(1)} MB, ` +
          `all done ${ranFor} ms after start\n`,
      );
    },
    BUDGET_MS + 30_000,
  );
});

describe('claims from processes that wait for the write lock', () => {
  it('are stamped with the time read once the lock is held, not before the wait', async () => {
    const db = path.join(tempDir(), 'q.db');
    const store = new SqliteTaskStore(db);
    store.enqueue([newTaskRow({ kind: 'probe', name: 'p', group: 'g', maxAttempts: 1 })], 0);
    let readUnderLock: boolean | null = null;
    const out = store.tick({
      now: () => {
        readUnderLock = store.db.inTransaction;
        return 5000;
      },
      worker: { id: 'w', pid: process.pid, host: 'h' },
      leaseMs: 1000,
      finishes: [],
      claimMax: 1,
    });
    store.close();
    expect(readUnderLock).toBe(true);
    expect(out.claimed.map((c) => c.task.startedAt)).toEqual([5000]);
  });
});
