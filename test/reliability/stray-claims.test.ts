/**
 * A claim that committed although its worker saw the tick fail (the connection died during
 * COMMIT, PostgreSQL could not be asked how it ended) leaves tasks leased to a live worker that
 * never runs them. They must go back to the queue and run, once, instead of staying `running`
 * for as long as that worker lives.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import { wrapSqliteStore } from '../../electron/core/store/sqlite/async-store.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import { tempDir, testEngine, waitFor } from '../helpers.ts';

describe('a claim whose commit the worker never saw', () => {
  it('gives its tasks back and runs them once', async () => {
    const file = path.join(tempDir(), 'queue.db');
    const real = new SqliteTaskStore(file);
    let cut = 0;
    const store = new Proxy(real, {
      get(target, key) {
        const v: unknown = Reflect.get(target, key, target);
        if (typeof v !== 'function') return v;
        const fn = v as (...a: unknown[]) => unknown;
        if (key !== 'tick') return (...a: unknown[]) => fn.apply(target, a);
        return (...a: unknown[]) => {
          const out = fn.apply(target, a) as { claimed: unknown[] };
          // The first claim commits, and its answer is lost on the way back.
          if (cut === 0 && out.claimed.length > 0) {
            cut++;
            throw new Error('Connection terminated unexpectedly');
          }
          return out;
        };
      },
    });
    const starts: number[] = [];
    const probe = defineHandler({
      kind: 'probe',
      description: '',
      payload: z.object({}),
      run: async (_p, { task }) => {
        starts.push(task.id);
      },
    });
    const warnings: string[] = [];
    const engine = await testEngine({
      store: wrapSqliteStore(store, file, 10),
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
    expect(cut).toBe(1);
    expect(starts).toEqual([t.id]);
    expect(warnings.join('\n')).toMatch(/leased to this worker but never started here/);
    const done = await engine.getTask(t.id);
    // The claim nobody ran is no attempt of the task's.
    expect(done.attempts).toBe(1);
    await engine.stop();
  });
});
