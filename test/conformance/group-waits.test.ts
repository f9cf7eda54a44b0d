/** The Groups screen's "oldest waiting": per group, its due waiting tasks and the longest-due one. */
import { describe, expect, it } from 'vitest';
import { A, backends, claim, ended, finish, freshQueue, task } from './harness.ts';

describe.each(backends)('oldest waiting on $name', (backend) => {
  it('counts due pending and retrying tasks per group, from the later of enqueue and run_at', async () => {
    const { store } = await freshQueue(backend);
    expect(await store.oldestWaiting(1000)).toEqual([]);
    // backups: enqueued at 100 and 300; the first is delayed to 500, so the second is due longest
    await store.enqueue([task({ group: 'backups', runAt: 500 })], 100);
    await store.enqueue([task({ group: 'backups', runAt: 300 })], 300);
    // delayed past `now`: scheduled, not waiting
    await store.enqueue([task({ group: 'backups', runAt: 5000 })], 200);
    // vendor: one failed attempt retrying from 700; one running (not waiting)
    await store.enqueue([task({ group: 'vendor', maxAttempts: 3 }), task({ group: 'vendor' })], 50);
    const claimed = await claim(store, A, 2, 60);
    await finish(store, A, 600, ended(claimed[0]!, 'retrying', 'retry', { runAt: 700 }));
    // cancelled: ended, not waiting
    const [gone] = await store.enqueue([task({ group: 'old' })], 10);
    await store.cancel([gone!.task.id], 20);

    // the newest enqueue, read before any write moves it (SQLite's inbox)
    await store.enqueue([task({ group: 'fresh', runAt: 900 })], 900);

    expect(await store.oldestWaiting(1000)).toEqual([
      { group: 'backups', count: 2, dueSince: 300 },
      { group: 'fresh', count: 1, dueSince: 900 },
      { group: 'vendor', count: 1, dueSince: 700 },
    ]);
    // before the retry is due, vendor has nothing waiting
    expect(await store.oldestWaiting(650)).toEqual([{ group: 'backups', count: 2, dueSince: 300 }]);
  });
});
