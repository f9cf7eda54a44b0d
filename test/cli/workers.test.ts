/** `semaforo workers`: who holds which leases, in a table and as --json; what a gone one's tasks became. */
import { describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { Task, WorkerLeases } from '../../shared/domain.ts';
import { cli, freshDb, json } from './cli-helpers.ts';

const NIGHTLY = { id: 'nightly@build-7:4242:ab', pid: 4242, host: 'build-7' };

const sleepTask = (name: string, maxAttempts: number) => ({
  kind: 'sleep',
  name,
  group: 'backups',
  priority: 5,
  maxAttempts,
  payload: '{"ms":0}',
  runAt: 0,
  timeout: null,
  unique: null,
});

describe('semaforo workers', () => {
  it('lists each lease owner with its tasks, and says when there is none', async () => {
    const db = freshDb();
    const store = new SqliteTaskStore(db);
    store.enqueue(
      ['pg_dump main', 'waiting'].map((name) => sleepTask(name, 1)),
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

  it('says in one line what became of each task of a worker or run that is gone', async () => {
    const db = freshDb();
    // Processes of this machine (as SEMAFORO_HOST_ID names it) whose pids do not exist.
    const host = 'reap-test-host';
    const gone = { id: `work@${host}:999999:ab`, pid: 999_999, host };
    const store = new SqliteTaskStore(db);
    store.enqueue([sleepTask('retried', 3), sleepTask('last try', 1)], 0);
    store.tick({ now: () => 1, worker: gone, leaseMs: 60_000, finishes: [], claimMax: 2 });
    store.enqueue(
      [
        {
          ...sleepTask('held for a run', 3),
          reservedFor: { id: `run@${host}:999998:cd`, pid: 999_998, host },
        },
      ],
      2,
    );
    store.close();

    const drain = await cli(['work', '--drain'], { db, env: { SEMAFORO_HOST_ID: host } });
    expect(drain.stderr).toContain(
      'took back 3 task(s) of a worker or `semaforo run` gone or stalled: ' +
        '1 returned to the queue; 2 failed (no attempts left); 3 cancelled\n',
    );
    const tasks = json<Task[]>(await cli(['--json', 'list'], { db }));
    expect(Object.fromEntries(tasks.map((t) => [t.name, t.status]))).toEqual({
      retried: 'done',
      'last try': 'failed',
      'held for a run': 'cancelled',
    });
  });
});
