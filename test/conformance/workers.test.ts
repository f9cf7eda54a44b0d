/** Who holds which leases: the Workers screen's and `semaforo workers`' read. */
import { describe, expect, it } from 'vitest';
import { A, B, backends, claim, done, finish, freshQueue, LEASE_MS, task } from './harness.ts';

describe.each(backends)('lease holders on $name', (backend) => {
  it('lists each owner with its running tasks, oldest start first, and drops finished ones', async () => {
    const { store } = await freshQueue(backend);
    expect(await store.leaseHolders()).toEqual([]);
    await store.enqueue(
      [
        task({ name: 'first' }),
        task({ name: 'second', group: 'disk', kind: 'shell' }),
        task({ name: 'third' }),
      ],
      0,
    );
    const [first] = await claim(store, A, 1, 100);
    const [second] = await claim(store, B, 1, 200);
    const [third] = await claim(store, A, 1, 300);
    // a task only waiting has no lease; one held for a `run` has a reservation, not a lease
    await store.enqueue([task({ name: 'waiting' }), task({ name: 'reserved', reservedFor: B })], 400);

    expect(await store.leaseHolders()).toEqual([
      {
        id: A.id,
        host: A.host,
        pid: A.pid,
        since: 100,
        tasks: [
          {
            id: first!.task.id,
            name: 'first',
            group: 'default',
            kind: 'sleep',
            startedAt: 100,
            leaseExpiresAt: 100 + LEASE_MS,
          },
          {
            id: third!.task.id,
            name: 'third',
            group: 'default',
            kind: 'sleep',
            startedAt: 300,
            leaseExpiresAt: 300 + LEASE_MS,
          },
        ],
      },
      {
        id: B.id,
        host: B.host,
        pid: B.pid,
        since: 200,
        tasks: [
          {
            id: second!.task.id,
            name: 'second',
            group: 'disk',
            kind: 'shell',
            startedAt: 200,
            leaseExpiresAt: 200 + LEASE_MS,
          },
        ],
      },
    ]);

    // A renewal moves the expiry; a finish takes the task off, and an owner with none left goes.
    await store.renewLeases(A, [third!.task.id], 500, LEASE_MS);
    await finish(store, A, 600, done(first!));
    await finish(store, B, 600, done(second!));
    expect(await store.leaseHolders()).toEqual([
      {
        id: A.id,
        host: A.host,
        pid: A.pid,
        since: 300,
        tasks: [expect.objectContaining({ name: 'third', startedAt: 300, leaseExpiresAt: 500 + LEASE_MS })],
      },
    ]);
  });
});
