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

function done(c: ClaimedTask, result: string | null, output: string | null): Finish {
  return {
    taskId: c.task.id,
    attempt: c.task.attempts,
    historyId: c.historyId,
    status: 'done',
    result,
    output,
  };
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
    expect(store.reclaimLost(2000, (o) => o.id === a.id).sort()).toEqual(ofA.map((c) => c.task.id).sort());
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
});
