/**
 * The claim, as SQLite's (../sqlite/claim.ts) decides it, inside the tick's transaction. What
 * makes it hold across processes and hosts: the tick first takes a transaction-level advisory
 * lock on this queue (tick.ts), so the counts, group rows and rate-window log it reads cannot
 * change under it until it commits; that lock is held for the tick's transaction only (one claim
 * plus its finishes), never across a handler's run. The tasks it takes are locked with
 * FOR UPDATE SKIP LOCKED, so an operator's transaction holding one of them does not keep every
 * host's claims waiting behind the claim lock (measured: the extra pass costs within the noise of
 * a drain, RESULTS.md).
 *
 * The decision is the shared claim plan's (../../policy/claim-plan.ts). Limits, in this order: the queue's pause and global limit (from `counts`, O(groups)); per
 * group its pause, Retry-After block, concurrency and sliding-window rate; then the best
 * candidates by (priority, run_at, id) per group, merged and cut to the global room.
 *
 * Clocks: `now` is the host's (the contract's, and what every stamp on the task is written
 * with); `queueNow` is the same instant on the database's clock (now + the host's measured
 * offset, pg-clock.ts). The rate-window log and Retry-After blocks are shared by every host and
 * are judged on `queueNow`, so a host whose clock runs minutes ahead can neither prune the other
 * hosts' starts out of the window nor see a cool-down as over.
 */
import { ACTIVE_STATUSES } from '../../../../shared/domain.ts';
import { TRANSITIONS } from '../../../../shared/transitions.ts';
import { claimGroupOf } from '../group-row.ts';
import { ClaimPlan, type ClaimCandidate } from '../../policy/claim-plan.ts';
import { RESERVE_AFTER_PASSES, RESERVERS_READ } from '../../policy/resource-ledger.ts';
import { decodeUses, heldOf } from '../resource-row.ts';
import { gateConfig, type GateRow } from '../gate-row.ts';
import type { ClaimedTask, TickInput, WorkerIdentity } from '../task-store.ts';
import type { Queryable } from './db.ts';
import {
  candidateRow,
  countsRow,
  dueRow,
  groupLimitsRow,
  rateWindowRow,
  settingsLimitsRow,
} from './limit-rows.ts';
import { eachById } from './each-by-id.ts';
import { INT, rowChecker } from '../column-types.ts';
import { toTask } from './rows.ts';

const list = (xs: readonly string[]) => xs.map((s) => `'${s}'`).join(', ');
/** Written as the partial indexes tasks_claimable* say it, so the planner can use them. */
const CLAIMABLE = list(TRANSITIONS.claim.from);

const WAITING = list(ACTIVE_STATUSES.filter((s) => s !== 'running'));
/** What a claim decides with (claimReady); a tick without finishes reads it as it opens. */
export const LIMITS = `SELECT global_concurrency, paused,
    (SELECT coalesce(json_agg(json_build_array(name, capacity)), '[]') FROM resources) AS resources,
    (SELECT coalesce(json_agg(g), '[]') FROM gates g) AS gates,
    (SELECT coalesce(json_agg(c), '[]') FROM (
      SELECT group_name, status, n FROM counts WHERE status = 'running' AND n > 0) c) AS counts,
    (SELECT coalesce(json_agg(g ORDER BY g.name), '[]') FROM (
      SELECT name, concurrency, rate_limit, rate_period_ms, rate_burst, paused, blocked_until,
        adaptive, eff_concurrency, eff_rate FROM groups
      WHERE name IN (SELECT group_name FROM counts WHERE status IN (${WAITING}) AND n > 0)) g) AS groups
  FROM settings WHERE id = 1`;

const WINDOW_STARTS =
  'SELECT count(*) AS n, min(started_at) AS oldest FROM group_starts WHERE group_name = $1 AND started_at > $2';

export interface ClaimInput {
  /**
   * The host's time and the same instant on the database's clock, read once (with the lock held)
   * after the limits are read: an end committed apart from its tick (tick-apart.ts) that this
   * claim saw is then always stamped before the claim's starts.
   */
  clock: () => { now: number; queueNow: number };
  worker: WorkerIdentity;
  leaseMs: number;
  claimMax: number;
  reservedOnly: boolean;
  kinds: readonly string[] | null;
  gates?: TickInput['gates'];
  /**
   * Made while ends are still being written beside it (tick-apart.ts): where a room those ends
   * would widen could bind it, it takes nothing and says `bound`, to be made after them.
   */
  beside?: boolean;
}

/** A candidate as read: its uses still the stored text. */
type Candidate = Omit<ClaimCandidate, 'uses'> & { uses: string | null };
const decoded = (c: Candidate): ClaimCandidate => ({ ...c, uses: decodeUses(c.uses) });
/** A candidate row with its ordering columns checked (limit-rows.ts); `uses` is decoded apart. */
const checkedCandidate = (c: Candidate): Candidate => (candidateRow(c), c);
const COLS = 'id, priority, run_at, group_name, uses, resource_waits';
const HOLDING = `SELECT uses FROM tasks
  WHERE uses IS NOT NULL AND status IN ('pending', 'running', 'retrying') AND status = 'running'`;
// Ready tasks passed over often enough to hold capacity back (the partial index tasks_resource_waits).
const RESERVERS = `SELECT ${COLS} FROM tasks
  WHERE resource_waits > 0 AND status IN ('pending', 'retrying') AND resource_waits >= $1 AND run_at <= $2
  ORDER BY priority, run_at, id LIMIT ${RESERVERS_READ}`;

const OF_KINDS = '($3::text[] IS NULL OR kind = ANY($3::text[]))';
const CANDIDATES = `SELECT ${COLS} FROM tasks
  WHERE group_name = $1 AND status IN (${CLAIMABLE}) AND reserved_for IS NULL
    AND run_at <= $2 AND ${OF_KINDS}
  ORDER BY priority, run_at, id LIMIT $4`;
const RESERVED_CANDIDATES = `SELECT ${COLS} FROM tasks
  WHERE group_name = $1 AND status IN (${CLAIMABLE}) AND reserved_for = $5
    AND run_at <= $2 AND ${OF_KINDS}
  ORDER BY priority, run_at, id LIMIT $4`;
const NEXT_DUE = `SELECT min(run_at) AS at FROM tasks
  WHERE group_name = $1 AND status IN (${CLAIMABLE}) AND reserved_for IS NULL AND ${OF_KINDS.replaceAll('$3', '$2')}`;
const RESERVED_NEXT_DUE = `SELECT min(run_at) AS at FROM tasks
  WHERE group_name = $1 AND status IN (${CLAIMABLE}) AND reserved_for = $3 AND ${OF_KINDS.replaceAll('$3', '$2')}`;
// One statement, one round trip: the ids are locked first (SKIP LOCKED: a row an operator's
// transaction holds is left for the next tick), updated, given their attempt rows in the chosen
// order, and their starts logged for the groups with a rate window ($7). RETURNING has no order:
// the caller restores it.
const TAKE = `WITH chosen AS (
    ${eachById('tasks', '$1::bigint[]', `status IN (${CLAIMABLE})`, 'FOR UPDATE SKIP LOCKED')}),
  taken AS (
    UPDATE tasks SET status = 'running', attempts = attempts + 1, lease_owner = $2,
      lease_expires_at = $3, owner_pid = $4, owner_host = $5, started_at = $6, progress = NULL,
      cancel_requested = false, resource_waits = 0
    FROM chosen WHERE tasks.id = chosen.id RETURNING tasks.*),
  attempts AS (
    INSERT INTO history (task_id, type, attempt, started_at, outcome, worker)
    SELECT t.id, 'attempt', t.attempts, $6, 'running', $2
      FROM unnest($1::bigint[]) WITH ORDINALITY AS x(id, ord) JOIN taken t ON t.id = x.id
      ORDER BY x.ord
    RETURNING id, task_id),
  starts AS (
    INSERT INTO group_starts (group_name, started_at)
    SELECT group_name, $8 FROM taken WHERE group_name = ANY($7::text[]))
  SELECT taken.*, attempts.id AS history_id FROM taken JOIN attempts ON attempts.task_id = taken.id`;

const attemptRow = rowChecker<{ history_id: number }>('history', { history_id: INT }, 'history_id');

type LimitsRow = {
  global_concurrency: number;
  paused: boolean;
  resources: [name: string, capacity: number][];
  gates: GateRow[];
  counts: object[];
  groups: object[];
};

/**
 * Must run inside the tick's transaction, with the queue's claim lock held. `limits`: the rows
 * of LIMITS read already in this transaction, under the lock, after its last write.
 */
export async function claimReady(
  q: Queryable,
  c: ClaimInput,
  limits?: readonly object[],
): Promise<{ claimed: ClaimedTask[]; nextWakeAt: number | null; bound?: true }> {
  const { worker } = c;
  // What the plan decides with, in one round trip under the claim lock: the settings, the
  // resources and gates, the active counts, and the limits of the groups with something waiting
  // (only those can yield a candidate: the rest cost nothing per tick).
  const [settings] = (limits ?? (await q.query<object>(LIMITS))) as LimitsRow[];
  settingsLimitsRow(settings!);
  if (!settings || settings.paused || c.claimMax <= 0) return { claimed: [], nextWakeAt: null };
  const { now, queueNow } = c.clock();

  const runningByGroup = new Map<string, number>();
  let runningTotal = 0;
  for (const r of settings.counts.map(countsRow)) {
    runningByGroup.set(r.group_name, r.n);
    runningTotal += r.n;
  }
  // Asked also with no gate, so the judge forgets one that was removed.
  const verdict = c.gates ? c.gates(settings.gates.map(gateConfig)) : null;
  if (verdict?.queueClosed) return { claimed: [], nextWakeAt: null };
  const defined = settings.resources.map(([name, capacity]) => ({ name, capacity }));
  const plan = new ClaimPlan({
    globalConcurrency: settings.global_concurrency,
    paused: settings.paused,
    runningTotal,
    claimMax: c.claimMax,
    now,
    queueNow,
    ...(verdict && { closedGroups: verdict.closedGroups }),
    // Without a resource, nothing is read for them: a task naming one simply waits.
    ...(defined.length > 0 && {
      resources: {
        capacity: new Map(defined.map((r) => [r.name, r.capacity])),
        held: heldOf(await q.query<{ uses: string | null }>(HOLDING)),
      },
    }),
  });
  const groups = settings.groups.map((row) => claimGroupOf(groupLimitsRow(row)));
  const running = (g: { name: string }) => runningByGroup.get(g.name) ?? 0;
  if (c.beside && plan.endsCouldWiden(groups.map((g) => ({ group: g, running: running(g) }))))
    return { claimed: [], nextWakeAt: null, bound: true };
  if (plan.room <= 0) return { claimed: [], nextWakeAt: null };

  const waiting: string[] = [];
  const rateLimited = new Set<string>();
  for (const g of groups) {
    let room = plan.groupRoom(g, running(g));
    const windowStart = plan.windowStart(g);
    if (room > 0 && windowStart !== null) {
      rateLimited.add(g.name);
      await q.query('DELETE FROM group_starts WHERE group_name = $1 AND started_at <= $2', [
        g.name,
        plan.pruneBefore(g),
      ]);
      const [w] = (await q.query<object>(WINDOW_STARTS, [g.name, windowStart])).map(rateWindowRow);
      room = plan.rateRoom(g, room, w!.n, w!.oldest);
      const capStart = plan.capWindowStart(g);
      if (room > 0 && capStart !== null) {
        const [c] = (await q.query<object>(WINDOW_STARTS, [g.name, capStart])).map(rateWindowRow);
        room = plan.capRoom(g, room, c!.n, c!.oldest);
      }
    }
    if (room <= 0) continue;
    const limit = plan.readLimit(room);
    const ready = (
      c.reservedOnly
        ? await q.query<Candidate>(RESERVED_CANDIDATES, [g.name, now, c.kinds, limit, worker.id])
        : await q.query<Candidate>(CANDIDATES, [g.name, now, c.kinds, limit])
    ).map(checkedCandidate);
    if (ready.length === 0) waiting.push(g.name);
    plan.offer(g.name, room, ready.map(decoded));
  }
  if (defined.length > 0)
    plan.holdBack((await q.query<Candidate>(RESERVERS, [RESERVE_AFTER_PASSES, now])).map(decoded));

  const chosen = plan.choose().map((x) => x.id);
  if (plan.passedOver.length > 0)
    await q.query('UPDATE tasks SET resource_waits = resource_waits + 1 WHERE id = ANY($1::bigint[])', [
      plan.passedOver,
    ]);
  const claimed: ClaimedTask[] = [];
  if (chosen.length > 0) {
    const rows = await q.query<{ id: number; history_id: number }>(TAKE, [
      chosen,
      worker.id,
      now + c.leaseMs,
      worker.pid,
      worker.host,
      now,
      [...rateLimited],
      queueNow,
    ]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const taken = chosen.flatMap((id) => byId.get(id) ?? []);
    for (const row of taken) claimed.push({ task: toTask(row), historyId: attemptRow(row).history_id });
  }

  // A group with room but only delayed tasks: wake when its first is due.
  for (const g of waiting) {
    const [due] = (
      c.reservedOnly
        ? await q.query<object>(RESERVED_NEXT_DUE, [g, c.kinds, worker.id])
        : await q.query<object>(NEXT_DUE, [g, c.kinds])
    ).map(dueRow);
    plan.dueAt(due?.at ?? null);
  }
  return { claimed, nextWakeAt: plan.wakeAt };
}
