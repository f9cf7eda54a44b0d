/**
 * The claim: which ready tasks this worker may start now, decided inside the caller's write
 * transaction (BEGIN IMMEDIATE), so every limit is checked against the state of the file as all
 * processes left it, and no two workers can take the same task.
 *
 * The decision is the shared claim plan's (../../policy/claim-plan.ts); this module reads what it
 * needs and writes what it decided. Limits checked, in this order:
 * 1. the queue is not paused, and the global concurrency limit has room (running counts come from
 *    the `counts` table, kept exact by triggers, so this is O(groups), not O(tasks));
 * 2. per group: not paused, not blocked by a Retry-After, concurrency room, and rate room from the
 *    sliding window of starts in `group_starts`;
 * 3. per group, the best candidates by (priority, run_at, id) from the partial `tasks_claimable` index,
 *    at most that group's room each, merged across groups in the same order and cut to the
 *    global room.
 * Reading per group keeps a full group from being scanned over and over: a blocked group costs
 * one index probe, however many tasks wait in it.
 * Before 1. and within 2.: the machine gates as this worker judges them on its machine
 *    (TickInput.gates): a closed queue gate claims nothing, a closed group gate gives no room;
 * 4. with named resources defined: each candidate's resources, all or nothing, against what
 *    running tasks hold and what long-waiting tasks hold back (policy/resource-ledger.ts).
 */
import type { Database, Statement } from 'better-sqlite3';
import { ACTIVE_STATUSES } from '../../../../shared/domain.ts';
import { LIMITS } from '../../../../shared/limits.ts';
import { TRANSITIONS } from '../../../../shared/transitions.ts';
import { claimGroupOf, type ClaimGroupRow } from '../group-row.ts';
import { ClaimPlan, type ClaimCandidate } from '../../policy/claim-plan.ts';
import { RESERVE_AFTER_PASSES, RESERVERS_READ } from '../../policy/resource-ledger.ts';
import { decodeUses, heldOf } from '../resource-row.ts';
import { gateConfig, type GateRow } from '../gate-row.ts';
import type { ClaimedTask, TickInput, WorkerIdentity } from '../task-store.ts';
import { sqlList } from './sql.ts';
import { toTask, type TaskRow } from './task-columns.ts';
import { prepareOnUse } from './lazy-statement.ts';

/** Every priority a task can have (the CHECK on tasks.priority). */
const PRIORITY_LIST = Array.from({ length: LIMITS.priority.max - LIMITS.priority.min + 1 }, (_, i) => i);
const PRIORITIES = PRIORITY_LIST.join(', ');
const PRIORITY_ROWS = PRIORITY_LIST.map((p) => `(${p})`).join(', ');
/** Written as the partial indexes tasks_claimable* say it, so the planner can use them. */
const CLAIMABLE = sqlList(TRANSITIONS.claim.from);

/** A candidate as read: its uses still the stored text. */
type Candidate = Omit<ClaimCandidate, 'uses'> & { uses: string | null };
const decoded = (c: Candidate): ClaimCandidate =>
  c.uses === null ? { ...c, uses: [] } : { ...c, uses: decodeUses(c.uses) };
const COLS = 'id, priority, run_at, group_name, uses, resource_waits';

export class ClaimStatements {
  readonly settings: Statement<[], { global_concurrency: number; paused: number }>;
  readonly active: Statement<[], { group_name: string; status: string; n: number }>;
  readonly groups: Statement<[], ClaimGroupRow>;
  readonly windowStarts: Statement<[string, number], { n: number; oldest: number | null }>;
  readonly pruneStarts: Statement<[string, number]>;
  readonly addStart: Statement<[string, number]>;
  readonly candidates: Statement<[string, number, string | null, string | null, number], Candidate>;
  readonly reservedCandidates: Statement<
    [string, string, number, string | null, string | null, number],
    Candidate
  >;
  readonly take: Statement<[string, number, number, string, number, string], TaskRow>;
  readonly addAttempts: Statement<
    { list: string; now: number; worker: string },
    { id: number; task_id: number }
  >;
  readonly nextDue: Statement<[string, string | null, string | null], { at: number | null }>;
  readonly reservedNextDue: Statement<[string, string, string | null, string | null], { at: number | null }>;
  readonly resources: Statement<[], { name: string; capacity: number }>;
  readonly holding: Statement<[], { uses: string | null }>;
  readonly reservers: Statement<[number, number], Candidate>;
  readonly passedOver: Statement<[string]>;
  readonly gates: Statement<[], GateRow>;

  constructor(db: Database) {
    this.settings = prepareOnUse(db, 'SELECT global_concurrency, paused FROM settings WHERE id = 1');
    this.active = prepareOnUse(
      db,
      `SELECT group_name, status, n FROM counts WHERE status IN (${sqlList(ACTIVE_STATUSES)}) AND n > 0`,
    );
    this.groups = prepareOnUse(
      db,
      `SELECT name, concurrency, rate_limit, rate_period_ms, rate_burst, paused, blocked_until,
         adaptive, eff_concurrency, eff_rate FROM groups`,
    );
    this.windowStarts = prepareOnUse(
      db,
      'SELECT count(*) AS n, min(started_at) AS oldest FROM group_starts WHERE group_name = ? AND started_at > ?',
    );
    this.pruneStarts = prepareOnUse(db, 'DELETE FROM group_starts WHERE group_name = ? AND started_at <= ?');
    this.addStart = prepareOnUse(db, 'INSERT INTO group_starts (group_name, started_at) VALUES (?, ?)');
    // `priority IN (every priority)` makes one bounded range per priority: without it the scan of
    // a priority went on through every task of it delayed into the future. The kinds filter
    // (a JSON array, twice; NULL: every kind) is read from the row the index leads to.
    // `+?`: SQLite's planner looks at the value bound to a plain `?` that a partial index's
    // condition or a LIMIT depends on, and then prepares the statement again at every run
    // (~15 µs a run, against ~4 for the query); the unary plus hides the value, not the index.
    const ofKinds = '(? IS NULL OR kind IN (SELECT value FROM json_each(?)))';
    this.candidates = prepareOnUse(
      db,
      `SELECT ${COLS} FROM tasks INDEXED BY tasks_claimable
       WHERE group_name = +? AND priority IN (${PRIORITIES}) AND status IN (${CLAIMABLE})
         AND reserved_for IS NULL AND run_at <= ? AND ${ofKinds}
       ORDER BY priority, run_at, id LIMIT +?`,
    );
    this.reservedCandidates = prepareOnUse(
      db,
      `SELECT ${COLS} FROM tasks INDEXED BY tasks_claimable_reserved
       WHERE reserved_for = +? AND group_name = +? AND priority IN (${PRIORITIES})
         AND status IN (${CLAIMABLE}) AND reserved_for IS NOT NULL AND run_at <= ? AND ${ofKinds}
       ORDER BY priority, run_at, id LIMIT +?`,
    );
    // The last parameter is a JSON array of ids; `+status` keeps the planner on one rowid lookup
    // per id instead of the status index.
    this.take = prepareOnUse(
      db,
      `UPDATE tasks SET status = 'running', attempts = attempts + 1, lease_owner = ?,
         lease_expires_at = ?, owner_pid = ?, owner_host = ?, started_at = ?, progress = NULL,
         cancel_requested = 0, resource_waits = 0
       WHERE id IN (SELECT value FROM json_each(?)) AND +status IN (${CLAIMABLE}) RETURNING *`,
    );
    // @list is a JSON array of [task id, attempt].
    this.addAttempts = prepareOnUse(
      db,
      `INSERT INTO history (task_id, type, attempt, started_at, outcome, worker)
       SELECT value ->> 0, 'attempt', value ->> 1, @now, 'running', @worker FROM json_each(@list)
       RETURNING id, task_id`,
    );
    // The earliest waiting task of a group: the first of each priority's range, ten index seeks.
    this.nextDue = prepareOnUse(
      db,
      `WITH p(v) AS (VALUES ${PRIORITY_ROWS})
       SELECT min((SELECT run_at FROM tasks INDEXED BY tasks_claimable
         WHERE group_name = +? AND priority = p.v AND status IN (${CLAIMABLE})
           AND reserved_for IS NULL AND ${ofKinds} ORDER BY run_at LIMIT 1)) AS at FROM p`,
    );
    this.resources = prepareOnUse(db, 'SELECT name, capacity FROM resources');
    this.gates = prepareOnUse(db, 'SELECT * FROM gates');
    this.holding = prepareOnUse(
      db,
      `SELECT uses FROM tasks INDEXED BY tasks_using
       WHERE uses IS NOT NULL AND status IN ('pending', 'running', 'retrying') AND status = 'running'`,
    );
    this.reservers = prepareOnUse(
      db,
      `SELECT ${COLS} FROM tasks INDEXED BY tasks_resource_waits
       WHERE resource_waits > 0 AND status IN ('pending', 'retrying') AND resource_waits >= ? AND run_at <= ?
       ORDER BY priority, run_at, id LIMIT ${RESERVERS_READ}`,
    );
    this.passedOver = prepareOnUse(
      db,
      'UPDATE tasks SET resource_waits = resource_waits + 1 WHERE id IN (SELECT value FROM json_each(?))',
    );
    this.reservedNextDue = prepareOnUse(
      db,
      `WITH p(v) AS (VALUES ${PRIORITY_ROWS})
       SELECT min((SELECT run_at FROM tasks INDEXED BY tasks_claimable_reserved
         WHERE reserved_for = +? AND group_name = +? AND priority = p.v
           AND status IN (${CLAIMABLE}) AND reserved_for IS NOT NULL AND ${ofKinds}
         ORDER BY run_at LIMIT 1)) AS at FROM p`,
    );
  }
}

interface ClaimResult {
  claimed: ClaimedTask[];
  nextWakeAt: number | null;
}

/** Must run inside a write transaction. */
export function claimReady(
  s: ClaimStatements,
  now: number,
  worker: WorkerIdentity,
  leaseMs: number,
  claimMax: number,
  reservedOnly = false,
  kinds?: readonly string[],
  judgeGates?: TickInput['gates'],
): ClaimResult {
  // A task of a kind this worker has no handler for is left for a worker that has one.
  const kindList = kinds === undefined ? null : JSON.stringify(kinds);
  const settings = s.settings.get()!;
  if (settings.paused === 1 || claimMax <= 0) return { claimed: [], nextWakeAt: null };

  const runningByGroup = new Map<string, number>();
  const hasWaiting = new Set<string>();
  let runningTotal = 0;
  for (const r of s.active.all()) {
    if (r.status !== 'running') {
      hasWaiting.add(r.group_name);
      continue;
    }
    runningByGroup.set(r.group_name, r.n);
    runningTotal += r.n;
  }
  // Asked also with no gate, so the judge forgets one that was removed.
  const verdict = judgeGates ? judgeGates(s.gates.all().map(gateConfig)) : null;
  if (verdict?.queueClosed) return { claimed: [], nextWakeAt: null };
  const defined = s.resources.all();
  const plan = new ClaimPlan({
    globalConcurrency: settings.global_concurrency,
    paused: settings.paused === 1,
    runningTotal,
    claimMax,
    now,
    queueNow: now,
    ...(verdict && { closedGroups: verdict.closedGroups }),
    // Without a resource, nothing is read for them: a task naming one simply waits.
    ...(defined.length > 0 && {
      resources: {
        capacity: new Map(defined.map((r) => [r.name, r.capacity])),
        held: heldOf(s.holding.all()),
      },
    }),
  });
  if (plan.room <= 0) return { claimed: [], nextWakeAt: null };

  /** groups with room but nothing due now: when is their next task due? */
  const waiting: string[] = [];
  const rateLimited = new Set<string>();
  for (const row of s.groups.all()) {
    const g = claimGroupOf(row);
    let room = plan.groupRoom(g, runningByGroup.get(g.name) ?? 0);
    const windowStart = plan.windowStart(g);
    if (room > 0 && windowStart !== null) {
      rateLimited.add(g.name);
      s.pruneStarts.run(g.name, plan.pruneBefore(g)!);
      const w = s.windowStarts.get(g.name, windowStart)!;
      room = plan.rateRoom(g, room, w.n, w.oldest);
      const capStart = plan.capWindowStart(g);
      if (room > 0 && capStart !== null) {
        const c = s.windowStarts.get(g.name, capStart)!;
        room = plan.capRoom(g, room, c.n, c.oldest);
      }
    }
    if (room <= 0) continue;
    const limit = plan.readLimit(room);
    const ready = reservedOnly
      ? s.reservedCandidates.all(worker.id, g.name, now, kindList, kindList, limit)
      : s.candidates.all(g.name, now, kindList, kindList, limit);
    if (ready.length === 0 && hasWaiting.has(g.name)) waiting.push(g.name);
    plan.offer(g.name, room, ready.map(decoded));
  }
  if (defined.length > 0) plan.holdBack(s.reservers.all(RESERVE_AFTER_PASSES, now).map(decoded));

  const chosen = plan.choose().map((c) => c.id);
  if (plan.passedOver.length > 0) s.passedOver.run(JSON.stringify(plan.passedOver));
  const claimed: ClaimedTask[] = [];
  if (chosen.length > 0) {
    // One statement for all: each statement has a cost of its own (a statement journal, the
    // RETURNING table, the call) that would otherwise be paid per task.
    const rows = s.take.all(worker.id, now + leaseMs, worker.pid, worker.host, now, JSON.stringify(chosen));
    const byId = new Map(rows.map((r) => [r.id, r]));
    // In claim order (RETURNING has none), so the attempt rows are numbered in it too.
    const taken = chosen.flatMap((id) => byId.get(id) ?? []);
    const attempts = s.addAttempts.all({
      list: JSON.stringify(taken.map((r) => [r.id, r.attempts])),
      now,
      worker: worker.id,
    });
    const historyOf = new Map(attempts.map((h) => [h.task_id, h.id]));
    for (const row of taken) {
      // Only rate-limited groups pay for the start log.
      if (rateLimited.has(row.group_name)) s.addStart.run(row.group_name, now);
      claimed.push({ task: toTask(row), historyId: historyOf.get(row.id)! });
    }
  }

  // A group with room but only delayed tasks: wake when the first is due, also when other groups
  // claimed something now (else it waited for their finishes). Groups without room are woken by a
  // finish, a rate window or the end of a block instead.
  for (const g of waiting)
    plan.dueAt(
      (reservedOnly
        ? s.reservedNextDue.get(worker.id, g, kindList, kindList)
        : s.nextDue.get(g, kindList, kindList)
      )?.at ?? null,
    );
  return { claimed, nextWakeAt: plan.wakeAt };
}
