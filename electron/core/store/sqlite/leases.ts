/**
 * Leases: renewing them, reaping those of owners that are gone, giving them back on shutdown,
 * and the progress a lease holder reports. How a lease that ended without a result ends the
 * task is the policy's (policy/task-rules.ts).
 */
import type { Database, Statement } from 'better-sqlite3';
import {
  CANCEL_NOW_STATUSES,
  RELEASED_LEASE_END,
  isFinished,
  type LeaseEnd,
  lostLeaseEnd,
  orphanedReservationError,
} from '../../policy/task-rules.ts';
import { openAttemptOf, straysOf } from '../lease-strays.ts';
import type { LeaseHolder, ReclaimedTask, RenewResult, WorkerIdentity } from '../task-store.ts';
import type { Commits } from './commits.ts';
import type { Intake } from './enqueue.ts';
import { sqlList } from './sql.ts';
import type { TaskRow } from './task-columns.ts';
import { prepareOnUse } from './lazy-statement.ts';

interface OwnerRow {
  lease_owner: string | null;
  owner_pid: number | null;
  owner_host: string | null;
  latest: number | null;
}

interface ReserverRow {
  reserved_for: string;
  reserved_pid: number | null;
  reserved_host: string | null;
}

/** A LeaseEnd (policy/task-rules.ts) as the statements take it. */
interface LeaseEndParams {
  id: number;
  now: number;
  to: string;
  why: string;
  finished: number;
  uncounted: number;
}

function endParams(id: number, now: number, end: LeaseEnd): LeaseEndParams {
  return {
    id,
    now,
    to: end.status,
    why: end.error,
    finished: isFinished(end.status) ? 1 : 0,
    uncounted: end.attemptCounts ? 0 : 1,
  };
}

const ENDED_LEASE = `status = @to, error = @why, run_at = @now, finished_at = CASE WHEN @finished = 1 THEN @now END,
  attempts = attempts - @uncounted, lease_owner = NULL, lease_expires_at = NULL, owner_pid = NULL,
  owner_host = NULL, cancel_requested = 0`;

export class Leases {
  private readonly commits: Commits;
  private readonly intake: Intake;
  private readonly latestLease: Statement<[string], { latest: number | null }>;
  private readonly renew: Statement<[number, string]>;
  private readonly ownedBy: Statement<
    [string],
    { id: number; cancel_requested: number; started_at: number | null; attempt_id: number | null }
  >;
  private readonly runningOwners: Statement<[], OwnerRow>;
  private readonly reservers: Statement<[], ReserverRow>;
  private readonly cancelOrphans: Statement<{ now: number; why: string; owner: string }, { id: number }>;
  private readonly runningOf: Statement<[string], TaskRow>;
  private readonly endLease: Statement<LeaseEndParams>;
  private readonly release: Statement<LeaseEndParams & { owner: string }, { id: number }>;
  private readonly closeRunningAttempts: Statement<[number, string, string, number]>;
  private readonly openAttempt: Statement<[number], { attempt_id: number | null }>;
  private readonly progress: Statement<[number, number, string]>;
  private readonly liveOutput: Statement<[string, number, string]>;

  constructor(db: Database, commits: Commits, intake: Intake) {
    this.commits = commits;
    this.intake = intake;
    this.latestLease = prepareOnUse(
      db,
      "SELECT max(lease_expires_at) AS latest FROM tasks WHERE status = 'running' AND lease_owner = ?",
    );
    this.renew = prepareOnUse(
      db,
      "UPDATE tasks SET lease_expires_at = ? WHERE lease_owner = ? AND status = 'running'",
    );
    this.ownedBy = prepareOnUse(
      db,
      `SELECT id, cancel_requested, started_at, ${openAttemptOf('tasks.id')} AS attempt_id
       FROM tasks WHERE lease_owner = ? AND status = 'running'`,
    );
    this.runningOwners = prepareOnUse(
      db,
      `SELECT lease_owner, owner_pid, owner_host, max(lease_expires_at) AS latest
       FROM tasks WHERE status = 'running' GROUP BY lease_owner, owner_pid, owner_host`,
    );
    const waiting = sqlList(CANCEL_NOW_STATUSES);
    this.reservers = prepareOnUse(
      db,
      `SELECT DISTINCT reserved_for, reserved_pid, reserved_host FROM tasks INDEXED BY tasks_claimable_reserved
       WHERE reserved_for IS NOT NULL AND status IN (${waiting})`,
    );
    this.cancelOrphans = prepareOnUse(
      db,
      `UPDATE tasks SET status = 'cancelled', finished_at = @now, error = @why
       WHERE reserved_for = @owner AND status IN (${waiting}) RETURNING id`,
    );
    this.runningOf = prepareOnUse(db, "SELECT * FROM tasks WHERE status = 'running' AND lease_owner = ?");
    this.endLease = prepareOnUse(db, `UPDATE tasks SET ${ENDED_LEASE} WHERE id = @id AND status = 'running'`);
    // The task keeps its last error: a release says nothing about the task itself.
    this.release = prepareOnUse(
      db,
      `UPDATE tasks SET status = @to, attempts = attempts - @uncounted, run_at = @now, lease_owner = NULL,
         lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL
       WHERE id = @id AND status = 'running' AND lease_owner = @owner
       RETURNING id`,
    );
    this.closeRunningAttempts = prepareOnUse(
      db,
      `UPDATE history SET ended_at = ?, outcome = ?, error = ?
       WHERE task_id = ? AND type = 'attempt' AND outcome = 'running'`,
    );
    this.openAttempt = prepareOnUse(db, `SELECT ${openAttemptOf('?')} AS attempt_id`);
    this.progress = prepareOnUse(
      db,
      "UPDATE tasks SET progress = ? WHERE id = ? AND status = 'running' AND lease_owner = ?",
    );
    this.liveOutput = prepareOnUse(
      db,
      "UPDATE history SET output = ? WHERE id = ? AND type = 'attempt' AND outcome = 'running' AND worker = ?",
    );
  }

  renewLeases(
    worker: WorkerIdentity,
    runningIds: readonly number[],
    now: number,
    leaseMs: number,
  ): RenewResult {
    return this.commits.run('relaxed', (): RenewResult => {
      // Reapers see a renewal only as a change of the owner's latest lease, so it must change,
      // even when the wall clock stood still or stepped back onto the same millisecond.
      const latest = this.latestLease.get(worker.id)?.latest ?? null;
      const until = now + leaseMs === latest ? latest + 1 : now + leaseMs;
      this.renew.run(until, worker.id);
      const rows = this.ownedBy.all(worker.id);
      const held = new Map(rows.map((r) => [r.id, r.cancel_requested === 1]));
      const lost = runningIds.filter((id) => !held.has(id));
      const cancelRequested = runningIds.filter((id) => held.get(id) === true);
      return { lost, cancelRequested, strays: straysOf(rows, runningIds, now - leaseMs) };
    });
  }

  /**
   * Expiry is the caller's call, not a comparison with `now` here: each owner is shown with its
   * latest lease (`leaseExpiresAt`, written with the owner's wall clock), and only the caller can
   * tell an owner that stopped renewing from a clock that stepped (it watches with a monotonic
   * clock). `now` only stamps what is written.
   */
  reclaimLost(now: number, isLost: (owner: LeaseHolder) => boolean): ReclaimedTask[] {
    this.intake.takeInWaiting(); // a reserved task of a process now gone may still wait in the inbox
    // Cheap read first: the usual answer is "nothing to do" and needs no write lock.
    const lost = this.runningOwners
      .all()
      .filter(
        (o) =>
          o.lease_owner !== null &&
          isLost({ id: o.lease_owner, pid: o.owner_pid, host: o.owner_host, leaseExpiresAt: o.latest }),
      );
    const deadReservers = this.reservers
      .all()
      .filter((r) => isLost({ id: r.reserved_for, pid: r.reserved_pid, host: r.reserved_host }));
    if (lost.length === 0 && deadReservers.length === 0) return [];
    return this.commits.run('durable', () => {
      const orphans = deadReservers.flatMap((r) =>
        this.cancelOrphans
          .all({ now, why: orphanedReservationError(r.reserved_pid), owner: r.reserved_for })
          .map((o): ReclaimedTask => ({ id: o.id, status: 'cancelled' })),
      );
      // An owner that renewed since the read above is alive after all: leave it be.
      const rows = lost.flatMap((o) =>
        this.latestLease.get(o.lease_owner!)?.latest === o.latest ? this.runningOf.all(o.lease_owner!) : [],
      );
      const done = new Map<number, ReclaimedTask>();
      for (const r of rows) {
        if (done.has(r.id)) continue;
        const end = lostLeaseEnd(
          {
            attempts: r.attempts,
            maxAttempts: r.max_attempts,
            cancelRequested: r.cancel_requested === 1,
            reserved: r.reserved_for !== null,
          },
          r.lease_owner!,
        );
        done.set(r.id, { id: r.id, status: end.status });
        this.endLease.run(endParams(r.id, now, end));
        this.closeRunningAttempts.run(now, end.outcome, end.error, r.id);
      }
      return [...done.values(), ...orphans];
    });
  }

  /** On shutdown: give back this worker's leases without counting the attempt. */
  releaseLeases(
    worker: WorkerIdentity,
    taskIds: readonly number[],
    now: number,
    attemptIds?: readonly number[],
  ): number[] {
    const end = RELEASED_LEASE_END;
    return this.commits.run('durable', () => {
      const released: number[] = [];
      for (const [i, id] of taskIds.entries()) {
        const attempt = attemptIds?.[i];
        if (attempt !== undefined && this.openAttempt.get(id)?.attempt_id !== attempt) continue;
        if (this.release.get({ ...endParams(id, now, end), owner: worker.id })) {
          this.closeRunningAttempts.run(now, end.outcome, end.error, id);
          released.push(id);
        }
      }
      return released;
    });
  }

  setProgress(updates: ReadonlyMap<number, number>, worker: WorkerIdentity): void {
    this.commits.run('relaxed', () => {
      for (const [id, p] of updates) this.progress.run(p, id, worker.id);
    });
  }

  setLiveOutput(updates: ReadonlyMap<number, string>, worker: WorkerIdentity): void {
    this.commits.run('relaxed', () => {
      for (const [historyId, text] of updates) this.liveOutput.run(text, historyId, worker.id);
    });
  }
}
