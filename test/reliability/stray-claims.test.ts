/**
 * A claim that committed although its worker saw the tick fail (the connection died during
 * COMMIT, PostgreSQL could not be asked how it ended) leaves tasks leased to a live worker that
 * never runs them. They must go back to the queue and run, once, instead of staying `running`
 * for as long as that worker lives, also on a worker that is always in the middle of a tick.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import { wrapSqliteStore } from '../../electron/core/store/sqlite/async-store.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import { tempDir, testEngine, waitFor } from '../helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A store whose first claim commits and whose answer is then lost on the way back. */
function losingFirstClaim(file: string) {
  const real = new SqliteTaskStore(file);
  const lost = { count: 0 };
  const store = new Proxy(real, {
    get(target, key) {
      const v: unknown = Reflect.get(target, key, target);
      if (typeof v !== 'function') return v;
      const fn = v as (...a: unknown[]) => unknown;
      if (key !== 'tick') return (...a: unknown[]) => fn.apply(target, a);
      return (...a: unknown[]) => {
        const out = fn.apply(target, a) as { claimed: unknown[] };
        if (lost.count === 0 && out.claimed.length > 0) {
          lost.count++;
          throw new Error('Connection terminated unexpectedly');
        }
        return out;
      };
    },
  });
  return { store: wrapSqliteStore(store, file, 10), lost };
}

/** Ticks and renewals that take a while, as a server's round trips do. */
function slowed(store: TaskStore, ms: number): TaskStore {
  return new Proxy(store, {
    get(target, key) {
      const v: unknown = Reflect.get(target, key, target);
      if (typeof v !== 'function') return v;
      const fn = v as (...a: unknown[]) => unknown;
      if (key !== 'tick' && key !== 'renewLeases') return (...a: unknown[]) => fn.apply(target, a);
      return async (...a: unknown[]) => {
        await sleep(ms);
        return fn.apply(target, a);
      };
    },
  });
}

function probes() {
  const starts: number[] = [];
  const probe = defineHandler({
    kind: 'probe',
    description: '',
    payload: z.object({}),
    run: async (_p, { task }) => {
      starts.push(task.id);
    },
  });
  return { starts, probe };
}

describe('a claim whose commit the worker never saw', () => {
  it('gives its tasks back and runs them once', async () => {
    const file = path.join(tempDir(), 'queue.db');
    const { store, lost } = losingFirstClaim(file);
    const { starts, probe } = probes();
    const warnings: string[] = [];
    const engine = await testEngine({
      store,
      handlers: [probe],
      leaseMs: 300,
      reapIntervalMs: 20,
      schedules: false,
      logger: { info: () => {}, warn: (m) => warnings.push(m), error: () => {} },
    });
    const t = (await engine.enqueue({ kind: 'probe', payload: {} })).task;
    engine.start();
    await waitFor(
      async () => (await engine.getTask(t.id)).status === 'done',
      'the stray task to run',
      30_000,
    );
    expect(lost.count).toBe(1);
    expect(starts).toEqual([t.id]);
    expect(warnings.join('\n')).toMatch(/leased to this worker but never started here/);
    const done = await engine.getTask(t.id);
    // The claim nobody ran is no attempt of the task's.
    expect(done.attempts).toBe(1);
    await engine.stop();
  });

  it('gives them back on a worker that is never between ticks', async () => {
    const file = path.join(tempDir(), 'queue.db');
    const { store, lost } = losingFirstClaim(file);
    const { starts, probe } = probes();
    const engine = await testEngine({
      store: slowed(store, 15),
      handlers: [probe],
      leaseMs: 300,
      reapIntervalMs: 20,
      schedules: false,
      logger: { info: () => {}, warn: () => {}, error: () => {} },
    });
    const t = (await engine.enqueue({ kind: 'probe', payload: {} })).task;
    engine.start();
    // Work arriving all the time keeps a tick under way at every renewal.
    let feeding = true;
    const feeder = (async () => {
      while (feeding) {
        await engine.enqueue({ kind: 'probe', payload: {} });
        await sleep(2);
      }
    })();
    try {
      await waitFor(
        async () => (await engine.getTask(t.id)).status === 'done',
        'the stray task to run while the worker stays busy',
        30_000,
      );
    } finally {
      feeding = false;
      await feeder;
    }
    expect(lost.count).toBe(1);
    expect(starts.filter((id) => id === t.id)).toEqual([t.id]);
    expect((await engine.getTask(t.id)).attempts).toBe(1);
    await engine.stop();
  });
});
