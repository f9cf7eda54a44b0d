/**
 * A tick's ends of every kind in one statement (tick-ends.ts): what each writes to its task, its
 * attempt and its group, only where the worker still holds the lease, the group blocks on the
 * database's clock, and the counts kept. Real PostgreSQL (pg-backend.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import type { Finish } from '../../electron/core/store/task-store.ts';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgInSchema,
  pgLocation,
} from '../conformance/pg-backend.ts';
import { A, B, claim, done, ended, LEASE_MS, task } from '../conformance/shapes.ts';

const schemas: string[] = [];
afterEach(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s);
});

/** The host's clock an hour behind the database's: its blocks must be moved onto the latter. */
const BEHIND = 3_600_000;

const rows = <R extends object>(schema: string, sql: string, params: unknown[] = []) =>
  pgInSchema(schema, async (c) => (await c.query<R>(sql, params)).rows);

describe.skipIf(!pgAvailable)("a tick's ends on PostgreSQL", () => {
  it('write every kind in one tick, each only where the worker holds the lease', async () => {
    const schema = freshSchemaName('ends');
    schemas.push(schema);
    const store = await openPgStore(pgLocation(schema), { hostClock: () => Date.now() - BEHIND });
    await store.updateSettings({ globalConcurrency: 100 });
    // A task A loses to B before the tick: reaped, then claimed by B.
    await store.enqueue([task({ name: 'lost', group: 'lostgrp' })], 0);
    const [lost] = await claim(store, A, 1, 10);
    await store.reclaimLost(15, (o) => o.id === A.id);
    const [again] = await claim(store, B, 1, 20);
    expect(again!.task.id).toBe(lost!.task.id);

    const names = ['done', 'retry', 'failed', 'retry-after', 'failed-blocked', 'quota', 'twice'];
    const groups = ['a', 'a', 'b', 'vendor', 'vendor', 'quota', 'a'];
    await store.enqueue(
      names.map((name, i) => task({ name, group: groups[i]!, maxAttempts: 5 })),
      0,
    );
    const held = new Map((await claim(store, A, 10, 30)).map((c) => [c.task.name, c]));
    const c = (name: string) => held.get(name)!;

    const ends = {
      done: { ...done(c('done'), '"r"', 'out'), pausedMs: 12.4 },
      retry: { ...ended(c('retry'), 'retrying', 'retry', { runAt: 500, error: 'e1' }), pausedMs: 7 },
      failed: ended(c('failed'), 'failed', 'failed', { error: 'boom', output: 'o2' }),
      lost: { ...done(lost!, '"late"'), blockGroupUntil: 9000 },
      stale: { ...done(c('twice'), '"stale"'), attempt: c('twice').task.attempts + 1 },
      retryAfter: ended(c('retry-after'), 'retrying', 'retry-after', {
        runAt: 700,
        blockGroupUntil: 5000,
        error: '429',
      }),
      first: done(c('twice'), '"first"'),
      failedBlocked: ended(c('failed-blocked'), 'failed', 'failed', { blockGroupUntil: 4000 }),
      quota: { ...done(c('quota')), blockGroupUntil: 7000 },
      second: done(c('twice'), '"second"'),
    } satisfies Record<string, Finish>;
    const given = Object.values(ends);
    const out = await store.tick({
      now: () => 50,
      worker: A,
      leaseMs: LEASE_MS,
      finishes: given,
      claimMax: 0,
    });
    const { lost: _l, stale: _s, second: _2, ...written } = ends;
    expect(out.applied).toEqual(Object.values(written));
    expect(out.applied[4]).toBe(ends.first);

    const tasks = await rows<Record<string, unknown>>(
      schema,
      `SELECT name, status, finished_at, run_at, attempts, retry_after_count, error, result, progress,
         lease_owner FROM tasks ORDER BY id`,
    );
    const free = { lease_owner: null };
    expect(tasks).toEqual([
      {
        name: 'lost',
        status: 'running',
        finished_at: null,
        run_at: '15',
        attempts: '2',
        retry_after_count: '0',
        error: expect.any(String),
        result: null,
        progress: null,
        lease_owner: B.id,
      },
      {
        name: 'done',
        status: 'done',
        finished_at: '50',
        run_at: '0',
        attempts: '1',
        retry_after_count: '0',
        error: null,
        result: '"r"',
        progress: 1,
        ...free,
      },
      {
        name: 'retry',
        status: 'retrying',
        finished_at: null,
        run_at: '500',
        attempts: '1',
        retry_after_count: '0',
        error: 'e1',
        result: null,
        progress: null,
        ...free,
      },
      {
        name: 'failed',
        status: 'failed',
        finished_at: '50',
        run_at: '0',
        attempts: '1',
        retry_after_count: '0',
        error: 'boom',
        result: null,
        progress: null,
        ...free,
      },
      {
        name: 'retry-after',
        status: 'retrying',
        finished_at: null,
        run_at: '700',
        attempts: '0',
        retry_after_count: '1',
        error: '429',
        result: null,
        progress: null,
        ...free,
      },
      {
        name: 'failed-blocked',
        status: 'failed',
        finished_at: '50',
        run_at: '0',
        attempts: '1',
        retry_after_count: '0',
        error: 'failed',
        result: null,
        progress: null,
        ...free,
      },
      {
        name: 'quota',
        status: 'done',
        finished_at: '50',
        run_at: '0',
        attempts: '1',
        retry_after_count: '0',
        error: null,
        result: null,
        progress: 1,
        ...free,
      },
      {
        name: 'twice',
        status: 'done',
        finished_at: '50',
        run_at: '0',
        attempts: '1',
        retry_after_count: '0',
        error: null,
        result: '"first"',
        progress: 1,
        ...free,
      },
    ]);

    const attempts = await rows<Record<string, unknown>>(
      schema,
      `SELECT t.name, h.worker, h.ended_at, h.outcome, h.error, h.output, h.paused_ms
       FROM history h JOIN tasks t ON t.id = h.task_id WHERE h.type = 'attempt' ORDER BY h.id`,
    );
    expect(attempts).toEqual([
      {
        name: 'lost',
        worker: A.id,
        ended_at: '15',
        outcome: 'lost',
        error: expect.any(String),
        output: null,
        paused_ms: null,
      },
      {
        name: 'lost',
        worker: B.id,
        ended_at: null,
        outcome: 'running',
        error: null,
        output: null,
        paused_ms: null,
      },
      ...[
        ['done', 'done', null, 'out', '12'],
        ['retry', 'retry', 'e1', null, '7'],
        ['failed', 'failed', 'boom', 'o2', null],
        ['retry-after', 'retry-after', '429', null, null],
        ['failed-blocked', 'failed', 'failed', null, null],
        ['quota', 'done', null, null, null],
        ['twice', 'done', null, null, null],
      ].map(([name, outcome, error, output, paused]) => ({
        name,
        worker: A.id,
        ended_at: '50',
        outcome,
        error,
        output,
        paused_ms: paused,
      })),
    ]);

    // The blocks of the ends written, the latest per group, on the database's clock.
    const blocks = await rows<{ name: string; blocked_until: string | null }>(
      schema,
      'SELECT name, blocked_until FROM groups ORDER BY name',
    );
    const until = new Map(
      blocks.map((g) => [g.name, g.blocked_until === null ? null : Number(g.blocked_until)]),
    );
    expect(until.get('lostgrp')).toBeNull();
    expect(until.get('a')).toBeNull();
    for (const [group, at] of [
      ['vendor', 5000],
      ['quota', 7000],
    ] as const)
      expect(Math.abs(until.get(group)! - (at + BEHIND)), group).toBeLessThan(250);

    // and the counts are the tasks'
    const drift = await rows(
      schema,
      `SELECT * FROM (SELECT group_name, status, n FROM counts WHERE n <> 0) c
       FULL JOIN (SELECT group_name, status, count(*) AS n FROM tasks GROUP BY 1, 2) t USING (group_name, status)
       WHERE c.n IS DISTINCT FROM t.n`,
    );
    expect(drift).toEqual([]);
    await store.close();
  });
});
