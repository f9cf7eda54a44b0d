/**
 * The PostgreSQL store's row decoding: a row read from the database is outside input, so a
 * column of the wrong type fails with one line naming the table, the row and the column, while
 * what a face can still show (an unknown status, unreadable JSON) is shown in place. The rows
 * a claim decides limits with are checked too, so a schema edited by hand fails the tick
 * instead of being obeyed by coercion.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { groupLimitsRow, ownerRow } from '../../electron/core/store/postgres/limit-rows.ts';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import { toHistory, toTask } from '../../electron/core/store/postgres/rows.ts';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgLocation,
  PG_TEST_URL,
} from '../conformance/pg-backend.ts';
import { A, claim, task } from '../conformance/shapes.ts';

const ROW = {
  id: 5,
  kind: 'shell',
  name: 'backup',
  group_name: 'disk',
  priority: 3,
  payload: '{"command":"tar"}',
  status: 'running',
  attempts: 1,
  max_attempts: 3,
  retry_after_count: 0,
  run_at: 1000,
  timeout_ms: null,
  unique_key: null,
  lease_owner: 'w1',
  lease_expires_at: 31_000,
  owner_pid: 42,
  owner_host: 'box',
  cancel_requested: false,
  progress: 0.5,
  created_at: 900,
  started_at: 1000,
  finished_at: null,
  error: null,
  result: null,
  reserved_for: null,
  reserved_pid: null,
  reserved_host: null,
  schedule_id: 2,
  scheduled_for: 960,
  uses: null,
  resource_waits: 0,
};

describe('PostgreSQL rows', () => {
  it('decodes a tasks row into the Task the faces see', () => {
    expect(toTask(ROW)).toEqual({
      id: 5,
      kind: 'shell',
      name: 'backup',
      group: 'disk',
      priority: 3,
      payload: { command: 'tar' },
      status: 'running',
      attempts: 1,
      maxAttempts: 3,
      retryAfterCount: 0,
      runAt: 1000,
      timeout: null,
      unique: null,
      leaseOwner: 'w1',
      leaseExpiresAt: 31_000,
      cancelRequested: false,
      progress: 0.5,
      createdAt: 900,
      startedAt: 1000,
      finishedAt: null,
      error: null,
      result: null,
      reservedFor: null,
      scheduleId: 2,
      uses: [],
    });
  });

  it('refuses a column of the wrong type in one line naming the table, row and column', () => {
    expect(() => toTask({ ...ROW, attempts: '1' })).toThrow(
      'tasks row 5: attempts is "1", expected an integer',
    );
    expect(() => toTask({ ...ROW, cancel_requested: 0 })).toThrow(
      'tasks row 5: cancel_requested is 0, expected true or false',
    );
    expect(() => toTask({ ...ROW, finished_at: undefined })).toThrow(
      'tasks row 5: finished_at is missing, expected a number or null',
    );
    expect(() => toHistory({ id: 1, task_id: 5, type: 'attempt', attempt: 1 })).toThrow(
      'history row 1: started_at is missing, expected a number',
    );
  });

  it('shows an unknown status as failed with the reason, and unreadable JSON in place', () => {
    expect(toTask({ ...ROW, status: 'paused', payload: '{oops', result: 'nope' })).toMatchObject({
      status: 'failed',
      error: 'unknown status in database: paused',
      payload: { unreadable: 'payload', text: '{oops' },
      result: { unreadable: 'result', text: 'nope' },
    });
  });
});

describe('PostgreSQL rows a claim decides with', () => {
  it('refuses a limit or a lease holder of the wrong type, naming the row', () => {
    const group = {
      name: 'vendor',
      concurrency: 2,
      rate_limit: null,
      rate_period_ms: null,
      rate_burst: null,
      paused: false,
      adaptive: false,
      eff_concurrency: null,
      eff_rate: null,
    };
    expect(groupLimitsRow({ ...group, blocked_until: null })).toMatchObject({ concurrency: 2 });
    expect(() => groupLimitsRow({ ...group, concurrency: 1.5, blocked_until: null })).toThrow(
      'groups row "vendor": concurrency is 1.5, expected an integer or null',
    );
    expect(() => groupLimitsRow({ ...group, paused: 'f', blocked_until: null })).toThrow(
      'groups row "vendor": paused is "f", expected true or false',
    );
    expect(() => ownerRow({ lease_owner: 'w', owner_pid: '42', owner_host: 'h', latest: 1 })).toThrow(
      'tasks row "w": owner_pid is "42", expected an integer or null',
    );
  });
});

describe.skipIf(!pgAvailable)('a claim on a schema edited by hand', () => {
  const schema = freshSchemaName('rows');
  afterAll(() => dropSchema(schema));

  it('fails the tick in one line rather than obey a fractional group limit', async () => {
    const store = await openPgStore(pgLocation(schema));
    const c = new pg.Client({ connectionString: PG_TEST_URL });
    c.on('error', () => {});
    await c.connect();
    try {
      await store.updateGroup('vendor', { concurrency: 1 });
      await store.enqueue([task({ group: 'vendor', name: 'a' }), task({ group: 'vendor', name: 'b' })], 0);
      await c.query(`ALTER TABLE ${schema}.groups ALTER COLUMN concurrency TYPE numeric`);
      await c.query(`UPDATE ${schema}.groups SET concurrency = 1.5 WHERE name = 'vendor'`);
      await expect(claim(store, A, 10, 1)).rejects.toThrow(
        'groups row "vendor": concurrency is 1.5, expected an integer or null',
      );
      const running = await c.query(`SELECT id FROM ${schema}.tasks WHERE status = 'running'`);
      expect(running.rowCount).toBe(0);
      // The overview reads the same row and names it the same way.
      await expect(store.stats(1, 0)).rejects.toThrow('groups row "vendor": concurrency is 1.5');
    } finally {
      await c.end();
      await store.close();
    }
  });
});
