/**
 * A tick claims all its tasks in one statement and writes all its successful ends in two: each
 * claimed task must still get its own attempt row, in claim order, and each end must be written
 * only where this worker still holds that attempt, whatever else is in the same batch.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { ClaimedTask, Finish, WorkerIdentity } from '../../electron/core/store/task-store.ts';
import { newTaskRow, tempDir } from '../helpers.ts';
import { done } from '../conformance/shapes.ts';

const a: WorkerIdentity = { id: 'a@host:1:x', pid: 1, host: 'host' };
const b: WorkerIdentity = { id: 'b@host:2:y', pid: 2, host: 'host' };
const LEASE = 30_000;

let store: SqliteTaskStore;
afterEach(() => store?.close());

function open() {
  store = new SqliteTaskStore(path.join(tempDir(), 'q.db'));
  store.updateSettings({ globalConcurrency: 10 }); // the default 3 would cut before claimMax
  return store;
}

function claim(worker: WorkerIdentity, claimMax: number, now = 1000): ClaimedTask[] {
  return store.tick({ now: () => now, worker, leaseMs: LEASE, finishes: [], claimMax }).claimed;
}

describe('a batched tick', () => {
  it('claims in priority order within the limits and gives each task its own attempt row', () => {
    open();
    store.updateGroup('slow', { concurrency: 1 });
    store.enqueue(
      [
        newTaskRow({ name: 'p5-first', priority: 5 }),
        newTaskRow({ name: 'slow-1', group: 'slow', priority: 0 }),
        newTaskRow({ name: 'slow-2', group: 'slow', priority: 0 }),
        newTaskRow({ name: 'p1', priority: 1 }),
        newTaskRow({ name: 'p5-second', priority: 5 }),
        newTaskRow({ name: 'p9', priority: 9 }),
      ],
      500,
    );

    const claimed = claim(a, 4);

    // The slow group's limit of 1 lets one of its two through; the global cut takes the best 4.
    expect(claimed.map((c) => c.task.name)).toEqual(['slow-1', 'p1', 'p5-first', 'p5-second']);
    const historyIds = claimed.map((c) => c.historyId);
    expect(new Set(historyIds).size).toBe(4);
    expect(historyIds, 'attempt rows numbered in claim order').toEqual([...historyIds].sort((x, y) => x - y));
    for (const c of claimed) {
      expect(c.task).toMatchObject({ status: 'running', attempts: 1, leaseOwner: a.id, startedAt: 1000 });
      const t = store.getTask(c.task.id)!;
      expect(t.status).toBe('running');
      expect(t.history).toEqual([
        expect.objectContaining({
          id: c.historyId,
          taskId: c.task.id,
          type: 'attempt',
          attempt: 1,
          startedAt: 1000,
          endedAt: null,
          outcome: 'running',
          worker: a.id,
        }),
      ]);
    }
    expect(store.stats(1000, 0).counts).toMatchObject({ pending: 2, running: 4 });
  });

  it('writes the ends this worker still holds and none of the others in the same batch', () => {
    open();
    store.enqueue(
      Array.from({ length: 6 }, (_, i) => newTaskRow({ name: `t${i}` })),
      500,
    );
    const ofA = claim(a, 3, 1000);
    // a stops renewing: its three go back and b takes them, and the other three, as attempt 2 / 1.
    expect(
      store
        .reclaimLost(2000, (o) => o.id === a.id)
        .map((r) => r.id)
        .sort(),
    ).toEqual(ofA.map((c) => c.task.id).sort());
    const ofB = claim(b, 6, 3000);
    expect(ofB).toHaveLength(6);

    // a's late ends name attempts it no longer holds: nothing is written.
    const late = store.tick({
      now: () => 3500,
      worker: a,
      leaseMs: LEASE,
      finishes: ofA.map((c) => done(c, '"late"', 'from a')),
      claimMax: 0,
    });
    expect(late.applied).toEqual([]);

    const surrogate = 'cut pair: \udc00 end';
    const bigOutput = 'x'.repeat(20_000);
    const [b0, b1, b2, b3, b4, b5] = ofB as [ClaimedTask, ...ClaimedTask[]] & ClaimedTask[];
    const stale = { ...done(b3!, '"stale"', null), attempt: b3!.task.attempts + 1 };
    const failed: Finish = {
      taskId: b4!.task.id,
      attempt: b4!.task.attempts,
      historyId: b4!.historyId,
      status: 'failed',
      outcome: 'failed',
      error: 'boom',
      output: 'failing output',
    };
    const finishes: Finish[] = [
      done(b0, '{"rows":3,"quote":"\\"","nested":[1,{"a":null}]}', surrogate),
      done(b1!, null, null),
      failed,
      stale,
      done(b2!, '"plain string"', bigOutput),
      done(b5!, '42', 'é☃𝄞 \u0000 nul'),
    ];
    const out = store.tick({ now: () => 4000, worker: b, leaseMs: LEASE, finishes, claimMax: 0 });

    // In the order given, without the stale one.
    expect(out.applied).toEqual(finishes.filter((f) => f !== stale));

    const get = (c: ClaimedTask) => store.getTask(c.task.id)!;
    expect(get(b0)).toMatchObject({
      status: 'done',
      result: { rows: 3, quote: '"', nested: [1, { a: null }] },
    });
    expect(get(b0).history.at(-1)).toMatchObject({
      id: b0.historyId,
      outcome: 'done',
      endedAt: 4000,
      error: null,
      // Bound directly, a lone surrogate became one U+FFFD; through the batch it does too.
      output: 'cut pair: \ufffd end',
    });
    expect(get(b1!)).toMatchObject({ status: 'done', result: null, finishedAt: 4000, leaseOwner: null });
    expect(get(b1!).history.at(-1)).toMatchObject({ outcome: 'done', output: null });
    expect(get(b2!)).toMatchObject({ status: 'done', result: 'plain string' });
    expect(get(b2!).history.at(-1)!.output).toBe(bigOutput);
    expect(get(b5!)).toMatchObject({ status: 'done', result: 42 });
    expect(get(b5!).history.at(-1)!.output).toBe('é☃𝄞 \u0000 nul');
    expect(get(b4!)).toMatchObject({ status: 'failed', error: 'boom' });
    expect(get(b3!)).toMatchObject({ status: 'running', leaseOwner: b.id, result: null });
    expect(get(b3!).history.at(-1)).toMatchObject({ outcome: 'running', endedAt: null });

    // a's first attempts were closed by the reclaim, not by its late ends.
    for (const c of ofA) {
      const first = store.getTask(c.task.id)!.history.find((h) => h.id === c.historyId)!;
      expect(first.outcome).not.toBe('done');
      expect(first.output).not.toBe('from a');
    }
    expect(store.stats(4000, 0).counts).toMatchObject({ done: 4, failed: 1, running: 1, pending: 0 });
  });

  it('with a task named twice, writes the first end that holds the lease, as one by one did', () => {
    open();
    store.enqueue([newTaskRow({ name: 'twice' }), newTaskRow({ name: 'order' })], 500);
    const [first] = claim(a, 1, 1000);
    store.reclaimLost(2000, (o) => o.id === a.id);
    const again = claim(a, 2, 3000);
    const second = again.find((c) => c.task.id === first!.task.id);
    const other = again.find((c) => c.task.id !== first!.task.id);
    expect(second?.task.attempts).toBe(2);
    const stale = done(first!, '"stale"', 'stale output');
    const fresh = done(second!, '"fresh"', 'fresh output');
    const failed: Finish = {
      ...done(other!, null, null),
      status: 'failed',
      outcome: 'failed',
      error: 'first',
    };
    const after = done(other!, '"second"', null);
    const out = store.tick({
      now: () => 4000,
      worker: a,
      leaseMs: LEASE,
      finishes: [stale, fresh, failed, after],
      claimMax: 0,
    });
    expect(out.applied).toEqual([fresh, failed]);
    const t = store.getTask(first!.task.id)!;
    expect(t).toMatchObject({ status: 'done', result: 'fresh' });
    expect(t.history.find((h) => h.id === first!.historyId)).toMatchObject({ outcome: 'lost' });
    expect(t.history.find((h) => h.id === first!.historyId)!.output).not.toBe('stale output');
    expect(store.getTask(other!.task.id)).toMatchObject({ status: 'failed', error: 'first' });
  });

  it('writes a backlog of ends too large for one statement in several, all of them', () => {
    open();
    store.updateSettings({ globalConcurrency: 1000 });
    store.enqueue(
      Array.from({ length: 700 }, (_, i) => newTaskRow({ name: `t${i}` })),
      500,
    );
    const claimed = claim(a, 700);
    expect(claimed).toHaveLength(700);
    // 700 ends (more than one statement's count) and 40 MB of results (more than its text).
    const result = JSON.stringify('r'.repeat(60_000));
    const out = store.tick({
      now: () => 2000,
      worker: a,
      leaseMs: LEASE,
      finishes: claimed.map((c) => done(c, result, `out ${c.task.id}`)),
      claimMax: 0,
    });
    expect(out.applied).toHaveLength(700);
    expect(store.stats(2000, 0).counts).toMatchObject({ done: 700, running: 0 });
    const last = store.getTask(claimed[699]!.task.id)!;
    expect(last.result).toBe('r'.repeat(60_000));
    expect(last.history.at(-1)).toMatchObject({ outcome: 'done', output: `out ${last.id}` });
  });

  it('keeps its plans on rowid lookups after an ANALYZE of a small file', () => {
    const file = path.join(tempDir(), 'q.db');
    store = new SqliteTaskStore(file);
    store.enqueue([newTaskRow(), newTaskRow()], 500);
    claim(a, 1);
    store.db.exec('ANALYZE');
    expect(store.db.prepare('SELECT count(*) FROM sqlite_stat1').pluck().get()).toBeGreaterThan(0);
    store.close();

    store = new SqliteTaskStore(file);
    expect(store.db.prepare('SELECT count(*) FROM sqlite_stat1').pluck().get()).toBe(0);
    const tick = (
      store as unknown as {
        ticks: {
          claim: { take: { source: string } };
          finishDoneMany: { source: string };
          closeDoneMany: { source: string };
        };
      }
    ).ticks;
    for (const sql of [tick.claim.take.source, tick.finishDoneMany.source, tick.closeDoneMany.source]) {
      const plan = store.db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...(sql.includes('@') ? [{ now: 0, list: '[]', owner: 'x' }] : ['x', 0, 0, 'h', 0, '[]']))
        .map((r) => (r as { detail: string }).detail)
        .join(' | ');
      expect(plan).toMatch(/SEARCH (tasks|history) USING INTEGER PRIMARY KEY/);
      expect(plan).not.toMatch(/SCAN (tasks|history)/);
    }
  });
});

describe('a tick with the kinds its worker has', () => {
  it('claims only those kinds, leaves the others pending, and wakes for its own delayed ones', () => {
    open();
    store.enqueue(
      [
        newTaskRow({ kind: 'greet', name: 'theirs', runAt: 0 }),
        newTaskRow({ kind: 'sleep', name: 'mine', runAt: 0 }),
        newTaskRow({ kind: 'sleep', name: 'later', runAt: 5000 }),
      ],
      0,
    );
    const sleepOnly = () =>
      store.tick({
        now: () => 1000,
        worker: a,
        leaseMs: LEASE,
        finishes: [],
        claimMax: 10,
        kinds: ['sleep'],
      });
    const out = sleepOnly();
    expect(out.claimed.map((c) => c.task.name)).toEqual(['mine']);
    // Nothing more to claim now: the greet task due now must not hide the wake-up for the sleep
    // task due at 5000 (the worker slept until a write).
    const idle = sleepOnly();
    expect(idle.claimed).toEqual([]);
    expect(idle.nextWakeAt).toBe(5000);
    const other = store.tick({ now: () => 1000, worker: b, leaseMs: LEASE, finishes: [], claimMax: 10 });
    expect(other.claimed.map((c) => c.task.name)).toEqual(['theirs']);
  });
});
