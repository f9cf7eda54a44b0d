/** Change notification: a worker idles until another connection commits, and wakes when one does. */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers.ts';
import { backends, freshQueue } from './harness.ts';

describe.each(backends)('watch on $name', (backend) => {
  it("calls back for another connection's commit, once per commit, not for reads", async () => {
    const q = await freshQueue(backend);
    const writer = await q.connect();
    const reader = await q.connect();
    let calls = 0;
    const stop = q.store.watch(() => calls++);
    try {
      // Reads of another connection commit nothing (no task is enqueued here, so none moves).
      const readAll = async () => {
        await reader.stats(0, 5);
        await reader.listTasks({});
        await reader.getTask(1);
        await reader.settings();
        await reader.schedules.list();
      };
      await readAll();
      await writer.updateGroup('a', { concurrency: 1 });
      await waitFor(() => calls >= 1, 'a call for the first commit');
      await readAll();
      await writer.updateSettings({ retentionDays: 9 });
      await waitFor(() => calls >= 2, 'a call for the second commit');
      // Had the reads called back, the count would be ahead of the commits.
      expect(calls).toBe(2);
      expect((await q.store.settings()).retentionDays).toBe(9);
    } finally {
      stop();
    }
  });

  it('stops calling a listener once unsubscribed, while others go on', async () => {
    const q = await freshQueue(backend);
    const writer = await q.connect();
    let stopped = 0;
    let kept = 0;
    const stop = q.store.watch(() => stopped++);
    const stopKept = q.store.watch(() => kept++);
    try {
      await writer.updateSettings({ retentionDays: 8 });
      await waitFor(() => stopped === 1 && kept === 1, 'both listeners');
      stop();
      await writer.updateSettings({ retentionDays: 7 });
      await waitFor(() => kept === 2, 'the kept listener');
      await writer.updateSettings({ retentionDays: 6 });
      await waitFor(() => kept === 3, 'the kept listener again');
      expect(stopped).toBe(1);
    } finally {
      stopKept();
    }
  });
});
