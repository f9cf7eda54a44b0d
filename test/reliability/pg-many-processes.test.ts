/**
 * Many processes on one PostgreSQL queue (fixtures/many-run.ts says what the run does and what
 * must hold), the four workers pretending to be three hosts (SEMAFORO_HOST_ID; slots 0 and 3
 * share one), and every connection of the queue cut once mid-run (pg_terminate_backend). A
 * killed worker is restarted in its slot, as its host's: its tasks are reclaimed by the dead-pid
 * check of that host, another host's only by lease expiry. Besides, the server's counters must
 * match the rows, and no attempt row may lack its task.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgLocation,
  PG_TEST_URL,
} from '../conformance/pg-backend.ts';
import {
  manyRun,
  manyRunTitle,
  type AttemptRow,
  type ManyRunBackend,
  type TaskRow,
} from './fixtures/many-run.ts';

const SEED = Number(process.env.SEMAFORO_SEED ?? 20261205);
// The budget bounds each wait of the run; the whole run gets two of them. Beside three other
// busy processes on 2 cores the run took over 180 s, on a quiet machine about a minute.
const SIZE = { tasks: 20_000, kills: 6, budgetMs: 240_000 };
const HOSTS = ['host-a', 'host-b', 'host-c'];
const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s);
});

async function client(schema: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: PG_TEST_URL });
  c.on('error', () => {});
  await c.connect();
  await c.query(`SET search_path TO ${schema}`);
  return c;
}

const pgBackend: ManyRunBackend = {
  location: () => {
    const schema = freshSchemaName('many');
    schemas.push(schema);
    return pgLocation(schema);
  },
  workerEnv: (slot) => ({ SEMAFORO_HOST_ID: HOSTS[slot % HOSTS.length]! }),
  disturb: {
    atShare: 0.5,
    run: async (db) => {
      const schema = new URL(db).searchParams.get('schema')!;
      const c = await client(schema);
      try {
        const r = await c.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE application_name = $1 AND pid <> pg_backend_pid()`,
          [`semaforo ${schema}`],
        );
        return `${r.rowCount ?? 0} connections cut`;
      } finally {
        await c.end();
      }
    },
  },
  open: async (db) => {
    const c = await client(new URL(db).searchParams.get('schema')!);
    const rows = async <T extends pg.QueryResultRow>(sql: string) => (await c.query<T>(sql)).rows;
    return {
      done: async () =>
        Number(
          (await rows<{ n: string }>("SELECT coalesce(sum(n), 0) AS n FROM counts WHERE status = 'done'"))[0]!
            .n,
        ),
      leaseHolders: async () =>
        new Set(
          (
            await rows<{ p: number }>("SELECT DISTINCT owner_pid AS p FROM tasks WHERE status = 'running'")
          ).map((r) => Number(r.p)),
        ),
      tasks: () =>
        rows<TaskRow>(
          'SELECT id::int, unique_key, status, attempts::int, lease_owner FROM tasks ORDER BY id',
        ),
      history: () =>
        rows<AttemptRow>(
          `SELECT h.task_id::int, h.type, h.attempt::int, h.outcome, h.started_at::float8, h.ended_at::float8,
             h.worker, t.group_name
           FROM history h JOIN tasks t ON t.id = h.task_id ORDER BY h.task_id, h.id`,
        ),
      close: () => c.end(),
    };
  },
  after: async (db) => {
    const c = await client(new URL(db).searchParams.get('schema')!);
    try {
      const counted = await c.query(
        'SELECT group_name AS g, status AS st, n::int AS n FROM counts WHERE n <> 0 ORDER BY g, st',
      );
      const actual = await c.query(
        'SELECT group_name AS g, status AS st, count(*)::int AS n FROM tasks GROUP BY g, st ORDER BY g, st',
      );
      expect(counted.rows).toEqual(actual.rows);
      const orphans = await c.query(
        'SELECT count(*)::int AS n FROM history WHERE task_id NOT IN (SELECT id FROM tasks)',
      );
      expect(orphans.rows[0].n).toBe(0);
      return `${HOSTS.length} hosts`;
    } finally {
      await c.end();
    }
  },
};

describe.skipIf(!pgAvailable)(
  'many processes on one PostgreSQL queue, as three hosts, workers killed',
  () => {
    it(
      manyRunTitle(SIZE),
      async () => {
        process.stdout.write(`pg-many-processes: ${await manyRun(pgBackend, SIZE, SEED)}\n`);
      },
      2 * SIZE.budgetMs + 30_000,
    );
  },
);
