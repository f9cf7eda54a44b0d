/** `semaforo workers`: who holds which leases, in a table and as --json. */
import { describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { WorkerLeases } from '../../shared/domain.ts';
import { cli, freshDb, json } from './cli-helpers.ts';

const NIGHTLY = { id: 'nightly@build-7:4242:ab', pid: 4242, host: 'build-7' };

describe('semaforo workers', () => {
  it('lists each lease owner with its tasks, and says when there is none', async () => {
    const db = freshDb();
    const store = new SqliteTaskStore(db);
    store.enqueue(
      ['pg_dump main', 'waiting'].map((name) => ({
        kind: 'sleep',
        name,
        group: 'backups',
        priority: 5,
        maxAttempts: 1,
        payload: '{"ms":0}',
        runAt: 0,
        timeout: null,
        unique: null,
      })),
      0,
    );
    const started = Date.now() - 120_000;
    const [c] = store.tick({
      now: () => started,
      worker: NIGHTLY,
      leaseMs: 3_600_000,
      finishes: [],
      claimMax: 1,
    }).claimed;
    store.close();

    expect(json<WorkerLeases[]>(await cli(['--json', 'workers'], { db }))).toEqual([
      {
        ...NIGHTLY,
        since: started,
        tasks: [
          {
            id: c!.task.id,
            name: 'pg_dump main',
            group: 'backups',
            kind: 'sleep',
            startedAt: started,
            leaseExpiresAt: started + 3_600_000,
          },
        ],
      },
    ]);
    const human = await cli(['workers'], { db });
    expect(human.code).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^WORKER\s+HOST\s+PID\s+ID\s+TASK\s+GROUP\s+STARTED\s+LEASE ENDS$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        // a whole minute is said without its seconds ("2m ago")
        /^nightly@build-7:4242:ab\s+build-7\s+4242\s+1\s+pg_dump main\s+backups\s+2m(\d+s)? ago\s+in 5\dm(\d+s)?$/,
      ),
    ]);

    const none = freshDb();
    new SqliteTaskStore(none).close();
    const empty = await cli(['workers'], { db: none });
    expect([empty.code, empty.stdout]).toEqual([0, 'no worker holds a lease\n']);
  });
});
