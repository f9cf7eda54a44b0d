/**
 * Leases, as SQLite's (../sqlite/leases.ts): renewing them, reaping those of owners that are
 * gone, giving them back on shutdown, and the progress a lease holder reports. How a lease that
 * ended without a result ends the task is the policy's (policy/task-rules.ts).
 *
 * Across hosts a pid means nothing, so the caller's `isLost` judges each owner: a same-host
 * owner by its pid, another host's by its latest lease standing still on the reaper's monotonic
 * clock. Lease stamps are the owner's clock; they are compared only with themselves.
 */
import {
  CANCEL_NOW_STATUSES,
  RELEASED_LEASE_END,
  isFinished,
  type LeaseEnd,
  lostLeaseEnd,
  orphanedReservationError,
} from '../../policy/task-rules.ts';
import { openAttemptOf, straysOf } from '../lease-strays.ts';
import type { TaskStatus } from '../../../../shared/domain.ts';
import type { LeaseHolder, ReclaimedTask, RenewResult, WorkerIdentity } from '../task-store.ts';
import { pgCode, type Db, type Queryable } from './db.ts';
import { ownerRow, reserverRow } from './limit-rows.ts';
import { atMs, untilMs } from './pg-clock.ts';
import { claimLock } from './tick.ts';
import { eachById } from './each-by-id.ts';
import { pgText } from './pg-text.ts';

const WAITING = CANCEL_NOW_STATUSES.map((s) => `'${s}'`).join(', ');

const LATEST =
  "SELECT max(lease_expires_at) AS latest FROM tasks WHERE status = 'running' AND lease_owner = $1";
const RUNNING_OWNERS = `SELECT lease_owner, owner_pid, owner_host, max(lease_expires_at) AS latest
  FROM tasks WHERE status = 'running' GROUP BY lease_owner, owner_pid, owner_host`;
const RESERVERS = `SELECT DISTINCT reserved_for, reserved_pid, reserved_host FROM tasks
  WHERE reserved_for IS NOT NULL AND status IN (${WAITING})`;
// The rows a reap ends, locked in id order: the running tasks of the lost owners ($1) and the
// waiting tasks reserved for dead workers ($2).
const REAPABLE = `SELECT id, status = 'running' AS leased, attempts, max_attempts, cancel_requested,
    lease_owner, lease_expires_at, reserved_for, reserved_pid
  FROM tasks WHERE (status = 'running' AND lease_owner = ANY($1::text[]))
    OR (reserved_for = ANY($2::text[]) AND status IN (${WAITING}))
  ORDER BY id FOR UPDATE`;
// Every end of a reap in one statement, so the counts trigger takes its rows once, in (group,
// status) order, as the claim and the ends written apart do. An orphaned reservation ($7 false)
// keeps its due time and has no attempt to close.
const END_REAPED = `WITH e AS (
    SELECT * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::boolean[],
      $8::boolean[]) AS e(id, status, outcome, error, given_back, leased, finished)),
  ended AS (
    UPDATE tasks SET status = e.status, error = e.error,
      run_at = CASE WHEN e.leased THEN $1 ELSE tasks.run_at END,
      finished_at = CASE WHEN e.finished THEN $1::bigint END, attempts = attempts - e.given_back,
      lease_owner = NULL, lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL,
      cancel_requested = false
    FROM e WHERE tasks.id = e.id RETURNING tasks.id),
  closed AS (
    UPDATE history SET ended_at = $1, outcome = e.outcome, error = e.error
    FROM e JOIN ended ON ended.id = e.id
    WHERE e.leased AND history.task_id = e.id AND history.type = 'attempt' AND history.outcome = 'running')
  SELECT id FROM ended`;
// A shutdown's tasks given back ($4, this worker's, $5) in one statement, their rows locked in id
// order first (as renewals and the tick's ends lock them) and checked on what the lock read
// (each-by-id.ts), so the counts trigger takes its rows once, in (group, status) order, as a
// claim or an enqueue does; each attempt closed in it too. $8 (strays): the open attempt each must
// still have, so a later claim of the same task is never given back in its place.
// The task keeps its last error: a release says nothing about the task itself.
const RELEASE = `WITH mine AS MATERIALIZED (
    ${eachById('tasks', '$4::bigint[]', 'true', 'FOR UPDATE', 'id, status, lease_owner')}),
  released AS (
    UPDATE tasks SET status = $2, attempts = attempts - $3, run_at = $1, lease_owner = NULL,
      lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL
    FROM mine WHERE tasks.id = mine.id AND mine.status = 'running' AND mine.lease_owner = $5
      AND ($8::bigint[] IS NULL OR EXISTS (
        SELECT 1 FROM unnest($4::bigint[], $8::bigint[]) AS a(id, attempt) JOIN history h ON h.id = a.attempt
        WHERE a.id = tasks.id AND h.task_id = tasks.id AND h.type = 'attempt' AND h.outcome = 'running'))
    RETURNING tasks.id),
  closed AS (
    UPDATE history SET ended_at = $1, outcome = $6, error = $7
    FROM released WHERE history.task_id = released.id AND history.type = 'attempt'
      AND history.outcome = 'running')
  SELECT id FROM released`;

export async function renewLeases(
  db: Db,
  worker: WorkerIdentity,
  runningIds: readonly number[],
  now: number,
  leaseMs: number,
): Promise<RenewResult> {
  return db.tx(async (q) => {
    // Reapers see a renewal only as a change of the owner's latest lease, so it must change,
    // even when the wall clock stood still or stepped back onto the same millisecond.
    const [row] = await q.query<{ latest: number | null }>(LATEST, [worker.id]);
    const latest = row?.latest ?? null;
    const next = untilMs(now + leaseMs);
    const until = latest !== null && next === latest ? latest + 1 : next;
    // Locked in id order, as the tick locks the ends it writes: a renewal and this worker's
    // own tick, on two connections, each waiting for a row the other holds, would deadlock (and
    // stall both for the server's deadlock_timeout).
    const held = await q.query<{
      id: number;
      cancel_requested: boolean;
      started_at: number | null;
      attempt_id: number | null;
    }>(
      `UPDATE tasks SET lease_expires_at = $1
       FROM (SELECT id FROM tasks WHERE lease_owner = $2 AND status = 'running' ORDER BY id FOR UPDATE) mine
       WHERE tasks.id = mine.id
       RETURNING tasks.id, tasks.cancel_requested, tasks.started_at, ${openAttemptOf('tasks.id')} AS attempt_id`,
      [until, worker.id],
    );
    const byId = new Map(held.map((r) => [r.id, r.cancel_requested]));
    return {
      lost: runningIds.filter((id) => !byId.has(id)),
      cancelRequested: runningIds.filter((id) => byId.get(id) === true),
      strays: straysOf(held, runningIds, now - leaseMs),
    };
  });
}

/** A row REAPABLE locked: a lost owner's running task (`leased`) or an orphaned reservation. */
interface Reapable {
  id: number;
  leased: boolean;
  attempts: number;
  max_attempts: number;
  cancel_requested: boolean;
  lease_owner: string | null;
  lease_expires_at: number | null;
  reserved_for: string | null;
  reserved_pid: number | null;
}

/** How a reap ends one task; `outcome` closes its attempt, null for a reservation (no attempt). */
interface ReapEnd {
  id: number;
  status: TaskStatus;
  error: string;
  outcome: LeaseEnd['outcome'] | null;
  /** 1 when the attempt does not count (given back) */
  givenBack: number;
}

function leaseEnd(r: Reapable): ReapEnd {
  const end = lostLeaseEnd(
    {
      attempts: r.attempts,
      maxAttempts: r.max_attempts,
      cancelRequested: r.cancel_requested,
      reserved: r.reserved_for !== null,
    },
    r.lease_owner!,
  );
  return {
    id: r.id,
    status: end.status,
    error: end.error,
    outcome: end.outcome,
    givenBack: end.attemptCounts ? 0 : 1,
  };
}

function orphanEnd(r: Reapable): ReapEnd {
  return {
    id: r.id,
    status: 'cancelled',
    error: orphanedReservationError(r.reserved_pid),
    outcome: null,
    givenBack: 0,
  };
}

/** Each owner's latest lease among the rows, as RUNNING_OWNERS read it. */
function latestLeases(rows: readonly Reapable[]): Map<string | null, number | null> {
  const out = new Map<string | null, number | null>();
  for (const r of rows) {
    if (!r.leased) continue;
    const m = out.get(r.lease_owner) ?? null;
    const l = r.lease_expires_at;
    out.set(r.lease_owner, l === null ? m : m === null ? l : Math.max(m, l));
  }
  return out;
}

export async function reclaimLost(
  db: Db,
  at: number,
  isLost: (owner: LeaseHolder) => boolean,
): Promise<ReclaimedTask[]> {
  const now = atMs(at);
  // Cheap reads first: the usual answer is "nothing to do" and needs no transaction.
  const lost = (await db.query<object>(RUNNING_OWNERS))
    .map(ownerRow)
    .filter(
      (o) =>
        o.lease_owner !== null &&
        isLost({ id: o.lease_owner, pid: o.owner_pid, host: o.owner_host, leaseExpiresAt: o.latest }),
    );
  const dead = (await db.query<object>(RESERVERS))
    .map(reserverRow)
    .filter((r) => isLost({ id: r.reserved_for, pid: r.reserved_pid, host: r.reserved_host }));
  if (lost.length === 0 && dead.length === 0) return [];
  // Under the claim lock, as a tick's claim and its ends that need it. A reap holds the lock for
  // fewer round trips than a claim does, and waits for no other lock longer than REAP_LOCK_WAIT
  // while holding it (every host's claims wait behind it): a row held elsewhere leaves the reap
  // to the next round.
  let gaveUp = false;
  try {
    return await db.tx(
      async (q) => {
        try {
          return await reapLocked(q, now, lost, dead);
        } catch (e) {
          gaveUp = pgCode(e) === LOCK_NOT_AVAILABLE;
          throw e;
        }
      },
      `${claimLock(db.schema)}; SET LOCAL lock_timeout = '${REAP_LOCK_WAIT}'`,
    );
  } catch (e) {
    if (gaveUp) return [];
    throw e;
  }
}

/** How long a reap, holding the claim lock, waits for a task or counts row another holds. */
const REAP_LOCK_WAIT = '200ms';
const LOCK_NOT_AVAILABLE = '55P03';

async function reapLocked(
  q: Queryable,
  now: number,
  lost: ReturnType<typeof ownerRow>[],
  dead: ReturnType<typeof reserverRow>[],
): Promise<ReclaimedTask[]> {
  const rows = await q.query<Reapable>(REAPABLE, [
    [...new Set(lost.map((o) => o.lease_owner!))],
    [...new Set(dead.map((r) => r.reserved_for))],
  ]);
  // An owner that renewed since the read above is alive after all: leave it be.
  const latest = latestLeases(rows);
  const still = new Set(
    lost.filter((o) => latest.get(o.lease_owner!) === o.latest).map((o) => o.lease_owner),
  );
  const ends = rows.flatMap((r) =>
    r.leased ? (still.has(r.lease_owner) ? [leaseEnd(r)] : []) : [orphanEnd(r)],
  );
  if (ends.length === 0) return [];
  await q.query(END_REAPED, [
    now,
    ends.map((e) => e.id),
    ends.map((e) => e.status),
    ends.map((e) => e.outcome),
    ends.map((e) => e.error),
    ends.map((e) => e.givenBack),
    ends.map((e) => e.outcome !== null),
    ends.map((e) => isFinished(e.status)),
  ]);
  q.changed();
  // the reclaimed leases first, then the cancelled reservations, as SQLite's
  return [...ends.filter((e) => e.outcome !== null), ...ends.filter((e) => e.outcome === null)].map(
    (e): ReclaimedTask => ({ id: e.id, status: e.status }),
  );
}

export async function releaseLeases(
  db: Db,
  worker: WorkerIdentity,
  taskIds: readonly number[],
  at: number,
  attemptIds?: readonly number[],
): Promise<number[]> {
  if (taskIds.length === 0) return [];
  const now = atMs(at);
  const end = RELEASED_LEASE_END;
  return db.tx(async (q) => {
    const rows = await q.query<{ id: number }>(RELEASE, [
      now,
      end.status,
      end.attemptCounts ? 0 : 1,
      taskIds,
      worker.id,
      end.outcome,
      end.error,
      attemptIds ?? null,
    ]);
    if (rows.length > 0) q.changed();
    const released = new Set(rows.map((r) => r.id));
    return [...new Set(taskIds)].filter((id) => released.has(id));
  });
}

// The rows are checked on what their lock read (the newest version, held), and joined to the
// table by primary key only: each-by-id.ts says why.
export const SET_PROGRESS = `WITH mine AS MATERIALIZED (
    ${eachById('tasks', '$1::bigint[]', 'true', 'FOR UPDATE', 'id, status, lease_owner')})
  UPDATE tasks SET progress = u.p
  FROM mine JOIN unnest($1::bigint[], $2::float8[]) AS u(id, p) ON u.id = mine.id
  WHERE tasks.id = mine.id AND mine.status = 'running' AND mine.lease_owner = $3`;
export const SET_OUTPUT = `WITH free AS MATERIALIZED (
    ${eachById('history', '$1::bigint[]', 'true', 'FOR UPDATE SKIP LOCKED', 'id, type, outcome, worker')})
  UPDATE history SET output = u.t
  FROM free JOIN unnest($1::bigint[], $2::text[]) AS u(id, t) ON u.id = free.id
  WHERE history.id = free.id AND free.type = 'attempt' AND free.outcome = 'running' AND free.worker = $3`;

export async function setProgress(
  db: Db,
  updates: ReadonlyMap<number, number>,
  worker: WorkerIdentity,
): Promise<void> {
  if (updates.size === 0) return;
  await db.tx(async (q) => {
    // In id order, as renewals and the tick's ends lock these rows (deadlock-free).
    await q.query(SET_PROGRESS, [[...updates.keys()], [...updates.values()], worker.id]);
    q.changed();
  });
}

export async function setLiveOutput(
  db: Db,
  updates: ReadonlyMap<number, string>,
  worker: WorkerIdentity,
): Promise<void> {
  if (updates.size === 0) return;
  await db.tx(async (q) => {
    // A row another transaction holds is being closed (with its final output) or reaped: it
    // is skipped, so this never waits on, nor deadlocks with, the tick closing it.
    await q.query(SET_OUTPUT, [[...updates.keys()], [...updates.values()].map(pgText), worker.id]);
    q.changed();
  });
}
