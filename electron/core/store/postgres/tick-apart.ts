/**
 * A tick in two transactions where it can be: the ends of finished attempts committed first, in
 * one statement of their own without the queue's claim lock, then the claim under it (tick.ts).
 * Another host's claim then waits only for this one's claim, not for its ends too, so several
 * workers' ends and claims overlap on the server; and the ends cost one round trip (the statement
 * is its own transaction, its NOTIFY inside), not BEGIN, statement, NOTIFY and COMMIT.
 *
 * The ends go apart only when nothing about them needs the lock or a statement more: all
 * successful (a failed end writes its counts rows in a statement of its own, and two such
 * transactions could take them in opposite orders), each task named once, no paused time or
 * quota hold to write besides, and no adaptive group in the queue (what a group learns from its
 * ends is read, changed and written under the lock, before the claim that uses it). The statement
 * checks that last one itself and then writes nothing; the tick is then one transaction, as
 * every other tick is. A claim with no finish left reads its limits as it takes the lock, in the
 * same round trip. Many such ends (OVERLAP_MIN) go beside the claim rather than before it, on a
 * second connection (besideClaim); the adaptive check then comes from the last ends statement,
 * and a group made adaptive since is caught by this one and written under the lock after all.
 *
 * A connection lost during that statement leaves it unknown whether it committed: sent again, an
 * end that was written does not apply twice, and comes back as not applied (for a successful end
 * that changes nothing the caller keeps).
 *
 * Ends committed whose claim then failed are remembered by identity: the caller hands the same
 * finishes to its next tick, which reports them applied without writing them again (their leases
 * are gone by then, so a second write would call them lost).
 */
import type { Finish, TickInput, TickOutput } from '../task-store.ts';
import { pgCode, type PgDb } from './db.ts';
import { releaseLeases } from './leases.ts';
import { atMs } from './pg-clock.ts';
import {
  claimAlone,
  claimOpening,
  finishDoneParams,
  finishDoneSteps,
  tick,
  tickOpening,
  type DoneFinish,
} from './tick.ts';

const NO_ADAPTIVE = 'NOT (SELECT adaptive FROM any_adaptive)';
const ENDS_ALONE = `WITH any_adaptive AS MATERIALIZED (
    SELECT EXISTS (SELECT 1 FROM groups WHERE adaptive) AS adaptive),
  ${finishDoneSteps(NO_ADAPTIVE)},
  notified AS (SELECT pg_notify($8, $9) WHERE EXISTS (SELECT 1 FROM done))
  SELECT a.adaptive, done.id FROM any_adaptive a LEFT JOIN done ON true
  WHERE (SELECT count(*) FROM notified) >= 0`;

const DEADLOCK = '40P01';
const ATTEMPTS = 3;

function alone(finishes: readonly Finish[]): finishes is readonly DoneFinish[] {
  return (
    finishes.length > 0 &&
    finishes.every(
      (f) => f.status === 'done' && f.pausedMs === undefined && f.blockGroupUntil === undefined,
    ) &&
    new Set(finishes.map((f) => f.taskId)).size === finishes.length
  );
}

/** Writes the ends in one statement; null when the queue has an adaptive group (nothing written). */
async function writeEnds(
  db: PgDb,
  finishes: readonly DoneFinish[],
  input: TickInput,
  state: ApartState,
): Promise<Finish[] | null> {
  const params = [...finishDoneParams(finishes, atMs(input.now()), input.worker), db.channel, db.origin];
  for (let attempt = 1; ; attempt++) {
    try {
      // one row per end written, or one with a null id for none
      const rows = await db.query<{ adaptive: boolean; id: number | null }>(ENDS_ALONE, params);
      state.adaptive = rows[0]!.adaptive;
      state.endsFailed = false;
      if (state.adaptive) return null;
      const ids = new Set(rows.map((r) => r.id));
      return finishes.filter((f) => ids.has(f.taskId));
    } catch (e) {
      if (attempt < ATTEMPTS && pgCode(e) === DEADLOCK) continue;
      throw db.translate(e);
    }
  }
}

/** What a store's ticks carry from one to the next. */
export interface ApartState {
  /** finishes committed by an earlier tick whose claim failed */
  readonly committed: WeakSet<Finish>;
  /** whether the last ends statement found an adaptive group (then the ends go sequentially) */
  adaptive: boolean;
  /** whether the last ends written beside a claim failed (then they go first until written) */
  endsFailed: boolean;
}

export const newApartState = (): ApartState => ({
  committed: new WeakSet(),
  adaptive: false,
  endsFailed: false,
});

/** Fewer ends than this are written before the claim: a second connection would not pay. */
const OVERLAP_MIN = 64;

export async function tickApart(
  db: PgDb,
  input: TickInput,
  clockOffset: number,
  state: ApartState,
): Promise<TickOutput> {
  const { committed } = state;
  const earlier = input.finishes.filter((f) => committed.has(f));
  const finishes = earlier.length === 0 ? input.finishes : input.finishes.filter((f) => !committed.has(f));
  const out =
    alone(finishes) &&
    finishes.length >= OVERLAP_MIN &&
    input.claimMax > 0 &&
    !state.adaptive &&
    !state.endsFailed
      ? await besideClaim(db, input, finishes, clockOffset, state)
      : await beforeClaim(db, input, finishes, clockOffset, state);
  if (earlier.length === 0) return out;
  return { ...out, applied: [...earlier, ...out.applied] };
}

/** The ends committed first, then the claim (which then counts their slots as free). */
async function beforeClaim(
  db: PgDb,
  input: TickInput,
  finishes: readonly Finish[],
  clockOffset: number,
  state: ApartState,
): Promise<TickOutput> {
  const ends = alone(finishes) ? await writeEnds(db, finishes, input, state) : null;
  if (ends !== null && input.claimMax <= 0) return { claimed: [], applied: ends, nextWakeAt: null };
  for (const f of ends ?? []) state.committed.add(f);
  const out =
    ends !== null || finishes.length === 0
      ? await claimTx(db, input, clockOffset)
      : await tickTx(db, { ...input, finishes }, clockOffset);
  for (const f of ends ?? []) state.committed.delete(f);
  return ends === null ? out : { ...out, applied: [...ends, ...out.applied] };
}

/**
 * The ends and the claim at once, on two connections: on two cores the server writes one while
 * it runs the other. The claim still counts the ending tasks as running, so where a room their
 * ends widen could bind it (ClaimPlan.endsCouldWiden) it takes nothing and is made again after
 * them; otherwise it chooses what it would have chosen after them. The ends are awaited outside
 * the claim's transaction: waiting for them inside it, the claim would hold counts rows the
 * ends' trigger waits for, a wait the server cannot see. When the ends (or the claim after
 * them) fail once the first claim committed, its tasks, which this worker will not start, are
 * given back before the tick fails, and ends go before the claim until they are written again.
 */
async function besideClaim(
  db: PgDb,
  input: TickInput,
  finishes: readonly DoneFinish[],
  clockOffset: number,
  state: ApartState,
): Promise<TickOutput> {
  const writing = writeEnds(db, finishes, input, state).then((ends) => {
    for (const f of ends ?? []) state.committed.add(f);
    return ends;
  });
  // observed now: it may fail while the claim is still running
  writing.catch(() => {});
  let first: TickOutput & { bound?: true };
  try {
    first = await db.tx(
      (q, limits) => claimAlone(q, input, limits, clockOffset, true),
      claimOpening(db.schema),
    );
  } catch (e) {
    // settled before the tick fails, so the next one knows which ends are written
    await writing.catch(() => null);
    throw e;
  }
  let out: TickOutput;
  try {
    const ends = await writing.catch((e: unknown) => {
      state.endsFailed = true;
      throw e;
    });
    if (ends === null) {
      // An adaptive group appeared: its learning needs the ends and the claim under one lock.
      const more = input.claimMax - first.claimed.length;
      const rest = await tickTx(db, { ...input, finishes, claimMax: more }, clockOffset);
      out = {
        claimed: [...first.claimed, ...rest.claimed],
        applied: rest.applied,
        nextWakeAt: earliest(first.nextWakeAt, rest.nextWakeAt),
      };
    } else {
      out = first.bound ? await claimTx(db, input, clockOffset) : first;
      out = { ...out, applied: ends };
    }
    for (const f of ends ?? []) state.committed.delete(f);
  } catch (e) {
    await giveBack(db, input, first);
    throw e;
  }
  return out;
}

/** A claim's tasks whose tick then failed: back to the queue now rather than left as strays. */
async function giveBack(db: PgDb, input: TickInput, claim: TickOutput): Promise<void> {
  if (claim.claimed.length === 0) return;
  const ids = claim.claimed.map((c) => c.task.id).sort((a, b) => a - b);
  // failing too (the server gone), they are strays: the renewal gives them back
  await releaseLeases(db, input.worker, ids, input.now()).catch(() => {});
}

const earliest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

const claimTx = (db: PgDb, input: TickInput, clockOffset: number) =>
  db.tx((q, limits) => claimAlone(q, input, limits, clockOffset), claimOpening(db.schema));

/** The one-transaction tick: its finishes and its claim under the claim lock (tick.ts). */
const tickTx = (db: PgDb, input: TickInput, clockOffset: number) =>
  db.tx((q, opened) => tick(q, input, opened, clockOffset), tickOpening(db.schema));
