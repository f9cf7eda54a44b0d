/**
 * The dispatcher's tick: write the ends of finished attempts, then claim (claim.ts), in one
 * write transaction. The successful ends go in a few statements however many there are, as
 * JSON lists the statements read with json_each.
 */
import type { Database, Statement } from 'better-sqlite3';
import { isFinished } from '../../policy/task-rules.ts';
import type { Finish, TickInput, TickOutput, WorkerIdentity } from '../task-store.ts';
import type { LearningRow } from '../adaptive-row.ts';
import { AdaptiveLearning } from './adaptive-learning.ts';
import { ClaimStatements, claimReady } from './claim.ts';
import type { Commits } from './commits.ts';
import { splitByText } from './split-by-text.ts';
import { prepareOnUse } from './lazy-statement.ts';

type DoneFinish = Extract<Finish, { status: 'done' }>;
type FailedFinish = Exclude<Finish, { status: 'done' }>;
/** Most successful ends written by one statement, and about the most text (UTF-16 units) in it. */
const DONE_CHUNK = 512;
const DONE_CHUNK_CHARS = 8 * 1024 * 1024;
const NO_GROUPS: ReadonlyMap<string, LearningRow> = new Map();

interface FailedParams {
  id: number;
  owner: string;
  attempt: number;
  now: number;
  status: string;
  error: string;
  runAt: number | null;
  retryAfter: number;
  finished: number;
}

export class Tick {
  private readonly commits: Commits;
  private readonly claim: ClaimStatements;
  private readonly learning: AdaptiveLearning;
  private readonly finishDoneMany: Statement<{ now: number; list: string; owner: string }, { id: number }>;
  private readonly closeDoneMany: Statement<{ now: number; list: string }>;
  private readonly finishFailed: Statement<FailedParams>;
  private readonly closeAttempt: Statement<[number, string, string | null, string | null, number]>;
  private readonly groupOf: Statement<[number], { group_name: string }>;
  private readonly blockGroup: Statement<[number, string]>;
  private readonly setPaused: Statement<[number, number]>;

  constructor(db: Database, commits: Commits) {
    this.commits = commits;
    this.claim = new ClaimStatements(db);
    this.learning = new AdaptiveLearning(db);
    // @list is a JSON array of [task id, attempt, result JSON text or null]. The unary + keeps
    // the planner on one rowid lookup per entry instead of scanning the running tasks for each.
    this.finishDoneMany = prepareOnUse(
      db,
      `UPDATE tasks SET status = 'done', finished_at = @now, result = f.value ->> 2, error = NULL,
         lease_owner = NULL, lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL, progress = 1
       FROM json_each(@list) AS f
       WHERE tasks.id = f.value ->> 0 AND +tasks.status = 'running' AND +tasks.lease_owner = @owner
         AND +tasks.attempts = f.value ->> 1
       RETURNING tasks.id`,
    );
    // @list is a JSON array of [history id, output or null].
    this.closeDoneMany = prepareOnUse(
      db,
      `UPDATE history SET ended_at = @now, outcome = 'done', error = NULL, output = f.value ->> 1
       FROM json_each(@list) AS f WHERE history.id = f.value ->> 0`,
    );
    // A Retry-After reschedule gives its attempt back (attempts - 1) and counts itself instead.
    this.finishFailed = prepareOnUse(
      db,
      `UPDATE tasks SET status = @status, error = @error,
         run_at = coalesce(@runAt, run_at),
         finished_at = CASE WHEN @finished = 1 THEN @now END,
         attempts = attempts - @retryAfter, retry_after_count = retry_after_count + @retryAfter,
         lease_owner = NULL, lease_expires_at = NULL, owner_pid = NULL, owner_host = NULL,
         cancel_requested = 0
       WHERE id = @id AND status = 'running' AND lease_owner = @owner AND attempts = @attempt`,
    );
    this.closeAttempt = prepareOnUse(
      db,
      'UPDATE history SET ended_at = ?, outcome = ?, error = ?, output = ? WHERE id = ?',
    );
    this.groupOf = prepareOnUse(db, 'SELECT group_name FROM tasks WHERE id = ?');
    this.setPaused = prepareOnUse(db, 'UPDATE history SET paused_ms = ? WHERE id = ?');
    this.blockGroup = prepareOnUse(
      db,
      'UPDATE groups SET blocked_until = max(coalesce(blocked_until, 0), ?) WHERE name = ?',
    );
  }

  tick(input: TickInput): TickOutput {
    // Results are reported once this returns, so a tick with results waits for the disk (unless
    // the caller waits for syncResults instead); a claim alone need not: lost in a power cut, the
    // task is simply still pending.
    const durable = input.finishes.length > 0 && input.deferSync !== true;
    return this.commits.run(durable ? 'durable' : 'relaxed', () => {
      const now = input.now(); // inside BEGIN IMMEDIATE: see TickInput.now
      // Adaptive groups learn from this tick's outcomes before its claim uses what they learned.
      const adaptive = input.finishes.length > 0 ? this.learning.groups() : NO_GROUPS;
      const finishes = this.learning.withoutGuessedWaits(input.finishes, adaptive);
      const written = this.applyFinishes(finishes, input.worker, now);
      for (const f of written) if (f.pausedMs) this.setPaused.run(f.pausedMs, f.historyId);
      this.learning.learn(written, adaptive, now);
      // The caller knows its finishes by identity: the ones it gave, not the ones rewritten.
      const applied = finishes === input.finishes ? written : originals(written, finishes, input.finishes);
      const { claimed, nextWakeAt } = claimReady(
        this.claim,
        now,
        input.worker,
        input.leaseMs,
        input.claimMax,
        input.reservedOnly,
        input.kinds,
        input.gates,
      );
      return { claimed, applied, nextWakeAt };
    });
  }

  /**
   * Writes each attempt's end, only where this worker still holds that attempt's lease; returns
   * the finishes written, in the order given.
   */
  private applyFinishes(finishes: readonly Finish[], worker: WorkerIdentity, now: number): Finish[] {
    // A task named twice (which the dispatcher never sends) goes one by one, in order, so the
    // first end that holds the lease wins.
    if (new Set(finishes.map((f) => f.taskId)).size !== finishes.length) {
      return finishes.filter((f) =>
        f.status === 'done' ? this.applyDone([f], worker, now).size === 1 : this.applyFailed(f, worker, now),
      );
    }
    const written = this.applyDone(
      finishes.filter((f): f is DoneFinish => f.status === 'done'),
      worker,
      now,
    );
    return finishes.filter((f) =>
      f.status === 'done' ? written.has(f.taskId) : this.applyFailed(f, worker, now),
    );
  }

  /** The successful ends of distinct tasks, in chunks; returns the ids written. */
  private applyDone(finishes: readonly DoneFinish[], worker: WorkerIdentity, now: number): Set<number> {
    const written = new Set<number>();
    // Bounded, so that a backlog of finishes held back while writes failed (up to every running
    // task, each with a 64 KB result) never makes a list too long to write, which would fail
    // every retry the same way.
    const chunks = splitByText(
      finishes,
      (f) => (f.result?.length ?? 0) + (f.output?.length ?? 0),
      DONE_CHUNK_CHARS,
      DONE_CHUNK,
    );
    for (const chunk of chunks) {
      // toWellFormed: a lone surrogate would reach SQLite through JSON as invalid UTF-8; bound
      // directly it becomes one U+FFFD, and so it does here.
      const list = JSON.stringify(chunk.map((f) => [f.taskId, f.attempt, f.result?.toWellFormed() ?? null]));
      const ids = new Set(this.finishDoneMany.all({ now, list, owner: worker.id }).map((r) => r.id));
      const closes = chunk
        .filter((f) => ids.has(f.taskId))
        .map((f) => [f.historyId, f.output?.toWellFormed() ?? null]);
      if (closes.length > 0) this.closeDoneMany.run({ now, list: JSON.stringify(closes) });
      for (const id of ids) written.add(id);
      for (const f of chunk) if (f.blockGroupUntil !== undefined && ids.has(f.taskId)) this.holdGroup(f);
    }
    return written;
  }

  /** Writes one attempt's failed end, only if this worker still holds that attempt's lease. */
  private applyFailed(f: FailedFinish, worker: WorkerIdentity, now: number): boolean {
    const retryAfter = f.outcome === 'retry-after' ? 1 : 0;
    const changes = this.finishFailed.run({
      id: f.taskId,
      owner: worker.id,
      attempt: f.attempt,
      now,
      status: f.status,
      error: f.error,
      runAt: f.runAt ?? null,
      retryAfter,
      finished: isFinished(f.status) ? 1 : 0,
    }).changes;
    if (changes !== 1) return false;
    this.closeAttempt.run(now, f.outcome, f.error, f.output, f.historyId);
    this.holdGroup(f);
    return true;
  }

  /** A Retry-After or a used-up quota slows the task's whole group until then. */
  private holdGroup(f: Finish): void {
    if (f.blockGroupUntil === undefined) return;
    const t = this.groupOf.get(f.taskId);
    if (t) this.blockGroup.run(f.blockGroupUntil, t.group_name);
  }
}

/** `written` (some of `rewritten`) as the objects they were made from, `given`. */
function originals(written: readonly Finish[], rewritten: readonly Finish[], given: readonly Finish[]) {
  const from = new Map(rewritten.map((f, i) => [f, given[i]!]));
  return written.map((f) => from.get(f)!);
}
