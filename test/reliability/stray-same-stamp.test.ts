/**
 * While DelayHolds holds claims back (the wall clock stepped forward past a retry this worker
 * delayed), every claim is stamped with the same `dueNow()` (the hold's run_at - 1), a lease or
 * more behind the wall clock the renewal reads. A claim given back by a failed tick (as
 * PostgreSQL's tick-apart does when the ends beside a claim fail) is claimed again by the next
 * tick with the same started_at. The renewal must tell the two claims apart (by their attempts):
 * taking the second for the first's stray, it gave back a task its tick was about to start, and
 * the task ran twice at once.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Clock } from '../../electron/core/clock.ts';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import { wrapSqliteStore } from '../../electron/core/store/sqlite/async-store.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { TaskStore, TickInput } from '../../electron/core/store/task-store.ts';
import { tempDir, testEngine, waitFor } from '../helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a stray suspect and a later claim with the same stamp', () => {
  it('never runs a task twice at once', async () => {
    const file = path.join(tempDir(), 'queue.db');
    let wallOffset = 0;
    const wall: Clock = { now: () => Date.now() + wallOffset };
    const inner = wrapSqliteStore(new SqliteTaskStore(file), file, 10);
    const ctl = { target: -1, betrayed: false };
    const stamps: number[] = [];
    // Ticks take a while after their claim committed (server round trips); the first claim of
    // the target task is given back and the tick fails (tick-apart: ends beside it failed).
    const store: TaskStore = new Proxy(inner, {
      get(target, key) {
        const v: unknown = Reflect.get(target, key, target);
        if (typeof v !== 'function') return v;
        const fn = (v as (...a: unknown[]) => unknown).bind(target);
        if (key !== 'tick') return fn;
        return async (input: TickInput) => {
          const out = await target.tick(input);
          const mine = out.claimed.filter((c) => c.task.id === ctl.target);
          for (const c of mine) stamps.push(c.task.startedAt!);
          if (mine.length > 0 && !ctl.betrayed) {
            ctl.betrayed = true;
            await sleep(150);
            await target.releaseLeases(input.worker, [ctl.target], input.now());
            throw new Error('Connection terminated unexpectedly');
          }
          await sleep(150);
          return out;
        };
      },
    });
    let active = 0;
    let maxActive = 0;
    const starts: number[] = [];
    let failedOnce = false;
    const handlers = [
      defineHandler({
        kind: 'probe',
        description: '',
        payload: z.object({}),
        run: async (_p, { task }) => {
          starts.push(task.id);
          active++;
          maxActive = Math.max(maxActive, active);
          await sleep(800);
          active--;
        },
      }),
      defineHandler({
        kind: 'failOnce',
        description: '',
        payload: z.object({}),
        run: async () => {
          if (!failedOnce) {
            failedOnce = true;
            throw new Error('first try fails');
          }
        },
      }),
      defineHandler({
        kind: 'long',
        description: '',
        payload: z.object({}),
        run: async () => {
          await sleep(20_000);
        },
      }),
    ];
    const engine = await testEngine({
      store,
      handlers,
      clock: wall,
      leaseMs: 300,
      reapIntervalMs: 20,
      schedules: false,
      backoff: { baseMs: 60_000, capMs: 60_000, floorMs: 60_000, maxRetryAfter: 5 },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
    });
    // something running, so renewals run; a retry delayed 60 s (a hold)
    await engine.enqueue({ kind: 'long', payload: {} });
    const h = (await engine.enqueue({ kind: 'failOnce', payload: {} })).task;
    engine.start();
    await waitFor(async () => (await engine.getTask(h.id)).status === 'retrying', 'the retry', 10_000);
    // The wall clock steps 2 minutes forward: claims are held back to the retry's run_at - 1.
    wallOffset += 120_000;
    let feeding = true;
    const feeder = (async () => {
      while (feeding) {
        await engine.enqueue({ kind: 'probe', payload: {}, runAt: wall.now() + 3600_000 });
        await sleep(20);
      }
    })();
    try {
      const x = (await engine.enqueue({ kind: 'probe', payload: {}, runAt: wall.now() - 120_000 })).task;
      ctl.target = x.id;
      await waitFor(() => starts.includes(x.id), 'the task to start', 10_000);
      await sleep(1500);
      // the premise: both claims carried the same stamp
      expect(stamps.length).toBeGreaterThanOrEqual(2);
      expect(new Set(stamps).size).toBe(1);
      expect(maxActive).toBe(1);
    } finally {
      feeding = false;
      await feeder;
      await engine.stop(100);
    }
  }, 30_000);
});
