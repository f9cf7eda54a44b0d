import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import { z } from 'zod';
import { newTaskRow, tempDir, testEngine, waitFor } from '../helpers.ts';

// A private worker (`semaforo run`) runs its own task in its own process: nobody else may take it.
describe('tasks reserved for a private worker', () => {
  const ranBy: string[] = [];
  const probe = (who: string) =>
    defineHandler({
      kind: 'probe',
      description: 'records which worker ran it',
      payload: z.object({}),
      run: async () => {
        ranBy.push(who);
      },
    });

  it('are claimed only by the worker that reserved them, and that worker claims nothing else', async () => {
    ranBy.length = 0;
    const file = path.join(tempDir(), 'q.db');
    const shared = await testEngine({ file, handlers: [probe('shared')] });
    const runner = await testEngine({ file, handlers: [probe('private')], privateWorker: true });
    await shared.updateSettings({ globalConcurrency: 10 });
    const mine = (await runner.enqueue({ kind: 'probe', payload: {} })).task;
    expect(mine.reservedFor).toMatch(/@/);
    const other = (await shared.enqueue({ kind: 'probe', payload: {} })).task;

    shared.start();
    await waitFor(async () => (await shared.getTask(other.id)).status === 'done', 'the shared task');
    await shared.stop();
    expect((await shared.getTask(mine.id)).status).toBe('pending');

    runner.start();
    await waitFor(async () => (await runner.getTask(mine.id)).status === 'done', 'the reserved task');
    expect(ranBy).toEqual(['shared', 'private']);
    await runner.stop();
  });

  it('are cancelled, not left pending forever, when the reserving process is gone', () => {
    const store = new SqliteTaskStore(path.join(tempDir(), 'q.db'));
    try {
      const [r] = store.enqueue(
        [
          newTaskRow({
            name: 'nightly',
            reservedFor: { id: 'run@host:999999:ab', pid: 999_999, host: 'host' },
          }),
        ],
        1,
      );
      expect(store.reclaimLost(2, (o) => o.pid === 999_999)).toEqual([
        { id: r!.task.id, status: 'cancelled' },
      ]);
      const t = store.getTask(r!.task.id)!;
      expect(t.status).toBe('cancelled');
      expect(t.error).toMatch(/semaforo run process .*pid 999999.* ended/);
    } finally {
      store.close();
    }
  });
});
