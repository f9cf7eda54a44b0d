/**
 * After the wall clock steps back, what the file stamped before the step lies in the future:
 * tasks that were due look delayed by the step, a rate window looks full for as long, a schedule's
 * next due time moves away, and the queue freezes (an hour for a -1 h step). Every process that
 * opens the file runs on this machine (WAL needs shared memory), so they share one clock, and the
 * latest record of the past (recent tasks' creation, recent attempts' start, rate-window starts, a
 * schedule's last fire) later than now says the clock stepped back, and by how much.
 *
 * The rebase moves what was stamped before the step back by the step, in one transaction: each
 * wait keeps the time it had left (a 30 s delay still waits 30 s, a due task stays due) and rate
 * windows keep their shape, so the step neither freezes the queue nor lets it flood. It is
 * idempotent: afterwards nothing of the past lies ahead, and the next look finds no step.
 * A wait written after the step but before the rebase (one reaper interval) by a failure of an
 * older task comes out shorter by the step: the price of a file that carries no clock of its own.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Commits } from './commits.ts';
import { prepareOnUse } from './lazy-statement.ts';

/** Smaller differences are another process's stamp taken a moment later, not a step. */
const STEP_MS = 1000;
/** How many of the newest tasks and attempts are looked at for a stamp from before the step. */
const RECENT = 1000;

export class ClockRebase {
  private readonly latest: Statement<[], { at: number | null }>;
  private readonly shifts: Statement<{ now: number; d: number }>[];

  private readonly commits: Commits;

  constructor(db: Database, commits: Commits) {
    this.commits = commits;
    // The latest stamp of a window of recent rows, not of the newest row alone: a task enqueued
    // and started between the step and this look (the reaper's interval) is stamped on the new
    // timeline and would hide the step. Schedules keep their last fire whatever ran since.
    this.latest = prepareOnUse(
      db,
      `SELECT max(
        coalesce((SELECT max(created_at) FROM
          (SELECT created_at FROM tasks ORDER BY id DESC LIMIT ${RECENT})), 0),
        coalesce((SELECT max(started_at) FROM
          (SELECT started_at FROM history ORDER BY id DESC LIMIT ${RECENT})), 0),
        coalesce((SELECT max(started_at) FROM group_starts), 0),
        coalesce((SELECT max(last_enqueued_at) FROM schedules), 0)) AS at`,
    );
    this.shifts = [
      // Not a task created in the last minute by the clock as it is now: that one is from after
      // the step, its wait already measured on this timeline.
      `UPDATE tasks SET run_at = run_at - @d WHERE status IN ('pending', 'retrying')
         AND run_at > @now AND created_at NOT BETWEEN @now - 60000 AND @now`,
      'UPDATE tasks SET created_at = created_at - @d WHERE created_at > @now',
      'UPDATE history SET started_at = started_at - @d WHERE started_at > @now',
      'UPDATE history SET ended_at = ended_at - @d WHERE ended_at > @now',
      'UPDATE group_starts SET started_at = started_at - @d WHERE started_at > @now',
      'UPDATE groups SET blocked_until = blocked_until - @d WHERE blocked_until > @now',
      `UPDATE schedules SET next_due_at = next_due_at - @d WHERE next_due_at > @now`,
      `UPDATE schedules SET last_due_at = last_due_at - @d WHERE last_due_at > @now`,
      `UPDATE schedules SET last_enqueued_at = last_enqueued_at - @d WHERE last_enqueued_at > @now`,
    ].map((sql) => prepareOnUse<{ now: number; d: number }>(db, sql));
  }

  /** Rebases if the clock stepped back; returns the step in ms, or null when there was none. */
  rebase(now: number): number | null {
    if (this.step(now) === null) return null; // the usual answer, found without the write lock
    return this.commits.run('durable', () => {
      const d = this.step(now); // again under the lock: another process may have done it
      if (d !== null) this.apply(now, d);
      return d;
    });
  }

  /** How far the clock stepped back, if it did (a cheap read, no lock). */
  private step(now: number): number | null {
    const at = this.latest.get()?.at ?? 0;
    return at - now > STEP_MS ? at - now : null;
  }

  /** Inside a write transaction: moves the pre-step stamps back by `d`. */
  private apply(now: number, d: number): void {
    for (const s of this.shifts) s.run({ now, d });
  }
}
