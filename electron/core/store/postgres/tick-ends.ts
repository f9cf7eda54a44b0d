/**
 * Every end of a tick's finished attempts in one statement over arrays: successes, retries,
 * Retry-After reschedules and failures, their attempts closed, their paused time, and the group
 * blocks they ask for. The counts trigger then takes its rows once, in (group, status) order, as
 * every other writer of the queue's tasks does: written a statement per kind or per end, one
 * transaction took them in an order no other could share, and deadlocked with another host's
 * ends written apart (tick-apart.ts).
 *
 * An end is written only where this worker still holds that attempt's lease (running, leased to
 * it, at that attempt). The rows are locked in id order first, as a lease renewal locks them
 * (leases.ts), so the two never deadlock, and checked on what the lock read, so the table is
 * joined by primary key only (each-by-id.ts). A task named twice (the dispatcher never sends it)
 * gets its first end that holds the lease, as if they were written one after another.
 *
 * The group rows a block writes are locked in name order, as an enqueue inserts them. Every
 * other write of them holds the claim lock (learning, an operator's change), as the caller does,
 * and a claim only reads them, so they wait on nothing the ends hold.
 */
import { isFinished } from '../../policy/task-rules.ts';
import type { Finish, WorkerIdentity } from '../task-store.ts';
import type { Queryable } from './db.ts';
import { eachById } from './each-by-id.ts';
import { untilMs } from './pg-clock.ts';
import { pgText, pgTextOrNull } from './pg-text.ts';

// A success sets its result and progress and leaves cancel_requested as it is; a failure keeps
// its result and progress and clears cancel_requested. A retry moves run_at ($9, null: kept), a
// Retry-After reschedule gives its attempt back and counts itself instead ($10). `only`: a
// condition on no row, under which anything is written at all (tick-apart.ts).
export const tickEndsSteps = (only: string) => `f AS (
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[],
        $7::bigint[], $8::text[], $9::bigint[], $10::bigint[], $11::boolean[], $12::bigint[], $13::bigint[])
      WITH ORDINALITY AS f(id, attempt, status, outcome, result, error, history_id, output, run_at,
        given_back, finished, block_until, paused_ms, ord) WHERE ${only}),
  locked AS MATERIALIZED (${eachById('tasks', '$1::bigint[]', only, 'FOR UPDATE', 'id, status, lease_owner, attempts')}),
  mine AS (
    SELECT DISTINCT ON (f.id) f.* FROM f JOIN locked ON locked.id = f.id
    WHERE locked.status = 'running' AND locked.lease_owner = $15 AND locked.attempts = f.attempt
    ORDER BY f.id, f.ord),
  ended AS (
    UPDATE tasks SET status = mine.status, error = mine.error,
      result = CASE WHEN mine.status = 'done' THEN mine.result ELSE tasks.result END,
      progress = CASE WHEN mine.status = 'done' THEN 1 ELSE tasks.progress END,
      cancel_requested = mine.status = 'done' AND tasks.cancel_requested,
      run_at = coalesce(mine.run_at, tasks.run_at),
      finished_at = CASE WHEN mine.finished THEN $14::bigint END,
      attempts = tasks.attempts - mine.given_back,
      retry_after_count = tasks.retry_after_count + mine.given_back,
      lease_owner = NULL, lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL
    FROM mine WHERE tasks.id = mine.id
    RETURNING tasks.id, tasks.group_name, mine.ord, mine.block_until, mine.history_id, mine.outcome,
      mine.error, mine.output, mine.paused_ms),
  -- from what the update returned, joined to history by key only: a join of two CTEs, whose
  -- sizes the planner cannot see, ran as a nested loop (1024 ends: 1,047,552 comparisons)
  closed AS (
    UPDATE history SET ended_at = $14, outcome = ended.outcome, error = ended.error, output = ended.output,
      paused_ms = coalesce(ended.paused_ms, history.paused_ms)
    FROM ended WHERE history.id = ended.history_id),
  held AS MATERIALIZED (
    SELECT g.name FROM unnest((SELECT array_agg(DISTINCT group_name ORDER BY group_name) FROM ended
        WHERE block_until IS NOT NULL)) AS x(name)
      CROSS JOIN LATERAL (SELECT name FROM groups WHERE groups.name = x.name FOR UPDATE) g),
  blocked AS (
    UPDATE groups SET blocked_until = greatest(coalesce(groups.blocked_until, 0), b.until)
    FROM (SELECT group_name, max(block_until) AS until FROM ended WHERE block_until IS NOT NULL
        GROUP BY group_name) b
      JOIN held ON held.name = b.group_name
    WHERE groups.name = held.name)`;

/** Every end of a tick; the order (from 1) of each one written. */
export const TICK_ENDS = `WITH ${tickEndsSteps('true')}
  SELECT ord FROM ended`;

/** TICK_ENDS's parameters; `clockOffset` puts the blocks on the database's clock (claim.ts). */
export function tickEndsParams(
  finishes: readonly Finish[],
  worker: WorkerIdentity,
  now: number,
  clockOffset: number,
): unknown[] {
  const failed = (f: Finish) => (f.status === 'done' ? null : f);
  return [
    finishes.map((f) => f.taskId),
    finishes.map((f) => f.attempt),
    finishes.map((f) => f.status),
    finishes.map((f) => failed(f)?.outcome ?? 'done'),
    finishes.map((f) => (f.status === 'done' ? pgTextOrNull(f.result) : null)),
    finishes.map((f) => (f.status === 'done' ? null : pgText(f.error))),
    finishes.map((f) => f.historyId),
    finishes.map((f) => pgTextOrNull(f.output)),
    finishes.map((f) => {
      const runAt = failed(f)?.runAt;
      return runAt === undefined ? null : untilMs(runAt);
    }),
    finishes.map((f) => (failed(f)?.outcome === 'retry-after' ? 1 : 0)),
    finishes.map((f) => isFinished(f.status)),
    finishes.map((f) => (f.blockGroupUntil === undefined ? null : untilMs(f.blockGroupUntil + clockOffset))),
    // no paused time is written as none
    finishes.map((f) => (f.pausedMs ? Math.round(f.pausedMs) : null)),
    now,
    worker.id,
  ];
}

/** Writes `finishes` at `now` (the host's clock); the ones written, in the order given. */
export async function writeTickEnds(
  q: Queryable,
  finishes: readonly Finish[],
  worker: WorkerIdentity,
  now: number,
  clockOffset: number,
): Promise<Finish[]> {
  if (finishes.length === 0) return [];
  const rows = await q.query<{ ord: number }>(TICK_ENDS, tickEndsParams(finishes, worker, now, clockOffset));
  const written = new Set(rows.map((r) => r.ord - 1));
  return finishes.filter((_, i) => written.has(i));
}
