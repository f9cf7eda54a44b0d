import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, testEngine, waitFor } from '../helpers.ts';

describe('live output', () => {
  it("shows a running shell task's output so far, and its whole tail once it ends", async () => {
    const dir = tempDir();
    const go = path.join(dir, 'go');
    const engine = await testEngine();
    // Prints a line, then waits for the test to say go: the first line must be seen meanwhile.
    const [enqueued] = await engine.enqueueMany([
      {
        kind: 'shell',
        payload: {
          command: `echo "step 1"; while [ ! -e '${go}' ]; do sleep 0.05; done; echo "step 2"`,
          shell: true,
        },
      },
    ]);
    const id = enqueued!.task.id;
    const changed: number[] = [];
    engine.onChange((c) => changed.push(...c.taskIds));
    engine.start();
    const attempt = async () => (await engine.getTask(id))!.history.find((h) => h.type === 'attempt');
    await waitFor(async () => (await attempt())?.output?.includes('step 1') === true, 'first line shown');
    const running = (await engine.getTask(id))!;
    expect(running.status).toBe('running');
    expect(running.history.find((h) => h.type === 'attempt')).toMatchObject({ outcome: 'running' });
    expect(changed).toContain(id);
    fs.writeFileSync(go, '');
    await waitFor(async () => (await engine.getTask(id))!.status === 'done', 'task done');
    expect((await attempt())!.output).toBe('step 1\nstep 2\n');
    await engine.stop();
  });
});
