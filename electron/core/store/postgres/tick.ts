/**
 * The dispatcher's tick, as SQLite's (../sqlite/tick.ts): write the ends of finished attempts,
 * then claim (claim.ts), in one transaction. The successful ends go in one statement over
 * arrays however many there are; each is written only where this worker still holds that
 * attempt's lease.
 *
 * The transaction first takes this queue's claim lock (a transaction-level advisory lock, gone
 * at commit or rollback, also when the connection dies), and only then reads the clock: a time
 * read before waiting for the lock can be old by the wait, and starts stamped out of commit
 * order would let another host's rate check miss starts it must count.
 */
import { isFinished } from '../../policy/task-rules.ts';
import type { Finish, TickInput, TickOutput, WorkerIdentity } from '../task-store.ts';
import { ADAPTIVE_ROWS, adaptiveFrom, learn, withoutGuessedWaits } from './adaptive-learning.ts';
import { claimReady, LIMITS, type ClaimInput } from './claim.ts';
import type { Queryable } from './db.ts';
import { eachById } from './each-by-id.ts';
import { atMs, untilMs } from './pg-clock.ts';
import { pgText, pgTextOrNull } from './pg-text.ts';

export type DoneFinish = Extract<Finish, { status: 'done' }>;
type FailedFinish = Exclude<Finish, { status: 'done' }>;

// The successful ends and their attempts' closes, in one statement: an attempt is closed only
// where its task's end was written (this worker still held that attempt's lease). The rows are
// locked in id order first, as a lease renewal locks them (leases.ts), so the two never deadlock,
// and checked on what the lock read, so the table is joined by primary key only (each-by-id.ts).
// `only`: a condition on no row, under which anything is written at all (tick-apart.ts).
export const finishDoneSteps = (only: string) => `f AS (
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::text[])
      AS f(id, attempt, result, history_id, output) WHERE ${only}),
  locked AS MATERIALIZED (${eachById('tasks', '$1::bigint[]', only, 'FOR UPDATE', 'id, status, lease_owner, attempts')}),
  done AS (
    UPDATE tasks SET status = 'done', finished_at = $6, result = f.result, error = NULL,
      lease_owner = NULL, lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL, progress = 1
    FROM f JOIN locked ON locked.id = f.id
    WHERE tasks.id = locked.id AND locked.status = 'running' AND locked.lease_owner = $7
      AND locked.attempts = f.attempt
    RETURNING tasks.id),
  closed AS (
    UPDATE history SET ended_at = $6, outcome = 'done', error = NULL, output = f.output
    FROM f JOIN done ON done.id = f.id WHERE history.id = f.history_id)`;
export const FINISH_DONE = `WITH ${finishDoneSteps('true')} SELECT id FROM done`;

/** FINISH_DONE's parameters $1-$7. */
export const finishDoneParams = (finishes: readonly DoneFinish[], now: number, worker: WorkerIdentity) => [
  finishes.map((f) => f.taskId),
  finishes.map((f) => f.attempt),
  finishes.map((f) => pgTextOrNull(f.result)),
  finishes.map((f) => f.historyId),
  finishes.map((f) => pgTextOrNull(f.output)),
  now,
  worker.id,
];

// A Retry-After reschedule gives its attempt back (attempts - 1) and counts itself instead.
const FINISH_FAILED = `UPDATE tasks SET status = $1, error = $2, run_at = coalesce($3, run_at),
    finished_at = CASE WHEN $4 THEN $5::bigint END,
    attempts = attempts - $6, retry_after_count = retry_after_count + $6,
    lease_owner = NULL, lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL,
    cancel_requested = false
  WHERE id = $7 AND status = 'running' AND lease_owner = $8 AND attempts = $9
  RETURNING group_name`;
const CLOSE_ATTEMPT = 'UPDATE history SET ended_at = $1, outcome = $2, error = $3, output = $4 WHERE id = $5';
const SET_PAUSED = `UPDATE history SET paused_ms = p.ms
  FROM unnest($1::bigint[], $2::bigint[]) AS p(id, ms) WHERE history.id = p.id`;
const BLOCK_GROUP =
  'UPDATE groups SET blocked_until = greatest(coalesce(blocked_until, 0), $1) WHERE name = $2';

// A used-up quota reported by a successful attempt: the same hold, found by the task.
const HOLD_GROUP_OF = `UPDATE groups SET blocked_until = greatest(coalesce(blocked_until, 0), $1)
  WHERE name = (SELECT group_name FROM tasks WHERE id = $2)`;

/** The lock every claim of this queue takes first (one key per schema). */
export function claimLockKey(schema: string): string {
  return `semaforo.claim.${schema}`;
}

/** The statement that takes the claim lock, without parameters (for Db.tx's `opening`). */
export function claimLock(schema: string): string {
  const key = claimLockKey(schema).replaceAll("'", "''");
  return `SELECT pg_advisory_xact_lock(hashtextextended('${key}', 0))`;
}

/**
 * What a tick's transaction runs right after BEGIN, in the same round trip (Db.tx's `opening`):
 * the claim lock, then the adaptive groups, read in a statement of their own so its snapshot
 * comes after the lock.
 */
export function tickOpening(schema: string): string {
  return `${claimLock(schema)}; ${ADAPTIVE_ROWS}`;
}

/**
 * What a tick without finishes runs right after BEGIN instead (tick-apart.ts): the claim lock,
 * then the limits its claim decides with, in the same round trip. No finish, so nothing to learn.
 */
export function claimOpening(schema: string): string {
  return `${claimLock(schema)}; ${LIMITS}`;
}

/** Runs in a transaction opened with claimOpening(schema), whose rows are `limits`. */
export async function claimAlone(
  q: Queryable,
  input: TickInput,
  limits: readonly object[],
  clockOffset: number,
  beside = false,
): Promise<TickOutput & { bound?: true }> {
  const { claimed, nextWakeAt, bound } = await claimReady(
    q,
    { ...claimInput(input, clockOffset), beside },
    limits,
  );
  if (claimed.length > 0) q.changed();
  return { claimed, applied: [], nextWakeAt, ...(bound && { bound }) };
}

/** Runs in a transaction opened with tickOpening(schema), whose last rows are `opened`. */
export async function tick(
  q: Queryable,
  input: TickInput,
  opened: readonly object[],
  /** the host's offset to the database's clock, ms (pg-clock.ts) */
  clockOffset: number,
): Promise<TickOutput> {
  // Read once, with the lock held (see TickInput.now): first by the finishes, if any.
  const { clock } = claimInput(input, clockOffset);
  // Adaptive groups learn from this tick's outcomes before its claim uses what they learned.
  const adaptive = adaptiveFrom(opened);
  const finishes = await withoutGuessedWaits(q, input.finishes, adaptive);
  const written =
    finishes.length === 0 ? [] : await applyFinishes(q, finishes, input.worker, clock().now, clockOffset);
  const paused = written.filter((f) => f.pausedMs);
  if (paused.length > 0)
    await q.query(SET_PAUSED, [paused.map((f) => f.historyId), paused.map((f) => Math.round(f.pausedMs!))]);
  if (written.length > 0) await learn(q, written, adaptive, Math.round(clock().queueNow));
  // The caller knows its finishes by identity: the ones it gave, not the ones rewritten.
  const given = new Map(finishes.map((f, i) => [f, input.finishes[i]!]));
  const applied = finishes === input.finishes ? written : written.map((f) => given.get(f)!);
  const { claimed, nextWakeAt } = await claimReady(q, { ...claimInput(input, clockOffset), clock });
  if (applied.length > 0 || claimed.length > 0) q.changed();
  return { claimed, applied, nextWakeAt };
}

function claimInput(input: TickInput, clockOffset: number): ClaimInput {
  let read: { now: number; queueNow: number } | undefined;
  return {
    clock: () => {
      if (read) return read;
      const now = atMs(input.now());
      return (read = { now, queueNow: now + clockOffset });
    },
    worker: input.worker,
    leaseMs: untilMs(input.leaseMs),
    claimMax: input.claimMax,
    reservedOnly: input.reservedOnly ?? false,
    kinds: input.kinds === undefined ? null : [...input.kinds],
    ...(input.gates && { gates: input.gates }),
  };
}

async function applyFinishes(
  q: Queryable,
  finishes: readonly Finish[],
  worker: WorkerIdentity,
  now: number,
  clockOffset: number,
): Promise<Finish[]> {
  if (finishes.length === 0) return [];
  // The failed ends are written one by one, in the order given: their rows are locked in id
  // order first, all at once, for the same reason as FINISH_DONE's.
  if (finishes.some((f) => f.status !== 'done'))
    await q.query(eachById('tasks', '$1::bigint[]', 'true', 'FOR UPDATE'), [finishes.map((f) => f.taskId)]);
  // A task named twice (which the dispatcher never sends) goes one by one, in order, so the
  // first end that holds the lease wins.
  if (new Set(finishes.map((f) => f.taskId)).size !== finishes.length) {
    const out: Finish[] = [];
    for (const f of finishes) {
      const ok =
        f.status === 'done'
          ? (await applyDone(q, [f], worker, now, clockOffset)).size === 1
          : await applyFailed(q, f, worker, now, clockOffset);
      if (ok) out.push(f);
    }
    return out;
  }
  const written = await applyDone(
    q,
    finishes.filter((f): f is DoneFinish => f.status === 'done'),
    worker,
    now,
    clockOffset,
  );
  const out: Finish[] = [];
  for (const f of finishes) {
    if (f.status === 'done' ? written.has(f.taskId) : await applyFailed(q, f, worker, now, clockOffset))
      out.push(f);
  }
  return out;
}

async function applyDone(
  q: Queryable,
  finishes: readonly DoneFinish[],
  worker: WorkerIdentity,
  now: number,
  clockOffset: number,
): Promise<Set<number>> {
  if (finishes.length === 0) return new Set();
  const rows = await q.query<{ id: number }>(FINISH_DONE, finishDoneParams(finishes, now, worker));
  const ids = new Set(rows.map((r) => r.id));
  for (const f of finishes)
    if (f.blockGroupUntil !== undefined && ids.has(f.taskId))
      await q.query(HOLD_GROUP_OF, [untilMs(f.blockGroupUntil + clockOffset), f.taskId]);
  return ids;
}

async function applyFailed(
  q: Queryable,
  f: FailedFinish,
  worker: WorkerIdentity,
  now: number,
  clockOffset: number,
): Promise<boolean> {
  const retryAfter = f.outcome === 'retry-after' ? 1 : 0;
  const rows = await q.query<{ group_name: string }>(FINISH_FAILED, [
    f.status,
    pgText(f.error),
    f.runAt === undefined ? null : untilMs(f.runAt),
    isFinished(f.status),
    now,
    retryAfter,
    f.taskId,
    worker.id,
    f.attempt,
  ]);
  if (rows.length !== 1) return false;
  await q.query(CLOSE_ATTEMPT, [now, f.outcome, pgText(f.error), pgTextOrNull(f.output), f.historyId]);
  // Blocks are shared by every host: kept on the database's clock (claim.ts).
  if (f.blockGroupUntil !== undefined)
    await q.query(BLOCK_GROUP, [untilMs(f.blockGroupUntil + clockOffset), rows[0]!.group_name]);
  return true;
}
