/** `work --grace` longer than a node timer can wait (2^31-1 ms) still lets running tasks finish. */
import { describe, expect, it } from 'vitest';
import { testEngine, waitFor } from '../helpers.ts';

describe('work --grace longer than a node timer can wait', () => {
  it('still lets running tasks finish (node fires a timer over 2^31-1 ms after 1 ms)', async () => {
    const engine = await testEngine();
    const { task } = await engine.enqueue({ kind: 'sleep', payload: { ms: 300 } });
    engine.start();
    await waitFor(async () => (await engine.getTask(task.id)).status === 'running', 'the task to start');
    await engine.stop(30 * 86_400_000); // `work --grace 30d`
    expect((await engine.getTask(task.id)).status).toBe('done');
  });
});
