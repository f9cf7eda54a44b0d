/**
 * A tick in two transactions: the ends of finished attempts committed first, then the claim
 * under the queue's claim lock (tick.ts), which then sees the slots they freed. In one
 * transaction, the ends' counts rows and then the claim's were taken in two statements, in an
 * order no other writer shares (the statement triggers take theirs in (group, status) order
 * within one statement only), and deadlocked with another host's ends written apart.
 *
 * The ends go without the claim lock, in one statement that is its own transaction (its NOTIFY
 * inside: one round trip, not BEGIN, statement, NOTIFY and COMMIT), when nothing about them needs
 * the lock: all successful, each task named once, no paused time or quota hold to write besides,
 * and no adaptive group in the queue. Another host's claim then waits only for this one's claim,
 * not for its ends too, so several workers' ends and claims overlap on the server. The others
 * are committed under the lock (tick-ends.ts): an adaptive group's learning from its ends is
 * read, changed and written under it, before the claim that uses it, and a group a failed end
 * blocks is blocked before a claim reads it. The statement apart checks for an adaptive group
 * itself and then writes nothing; the ends then go under the lock. Many ends apart (OVERLAP_MIN)
 * go beside the claim rather than before it, on a second connection (besideClaim); the adaptive
 * check then comes from the last ends statement, and a group made adaptive since is caught by
 * this one and written under the lock after all.
 *
 * A connection lost during the statement apart leaves it unknown whether it committed: sent
 * again, an end that was written does not apply twice, and comes back as not applied (for a
 * successful end that changes nothing the caller keeps). Under the lock, a transaction whose
 * connection is lost is rolled back by the server, or, lost during COMMIT, asked about (db.ts).
 *
 * Ends committed whose claim then failed are remembered by identity: the caller hands the same
 * finishes to its next tick, which reports them applied without writing them again (their leases
 * are gone by then, so a second write would call them lost).
 */
import type { Finish, TickInput, TickOutput } from '../task-store.ts';
import { pgCode, type PgDb } from './db.ts';
import { releaseLeases } from './leases.ts';
import { atMs } from './pg-clock.ts';
import { claimAlone, claimOpening, endsLocked, endsOpening } from './tick.ts';
import { tickEndsParams, tickEndsSteps } from './tick-ends.ts';

const NO_ADAPTIVE = 'NOT (SELECT adaptive FROM any_adaptive)';
const ENDS_ALONE = `WITH any_adaptive AS MATERIALIZED (
    SELECT EXISTS (SELECT 1 FROM groups WHERE adaptive) AS adaptive),
  ${tickEndsSteps(NO_ADAPTIVE)},
  notified AS (SELECT pg_notify($16, $17) WHERE EXISTS (SELECT 1 FROM ended))
  SELECT a.adaptive, ended.ord FROM any_adaptive a LEFT JOIN ended ON true
  WHERE (SELECT count(*) FROM notified) >= 0`;

const DEADLOCK = '40P01';
const ATTEMPTS = 3;

function alone(finishes: readonly Finish[]): boolean {
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
  finishes: readonly Finish[],
  input: TickInput,
  state: ApartState,
): Promise<Finish[] | null> {
  // no block among them: the clock offset is not read
  const params = [...tickEndsParams(finishes, input.worker, atMs(input.now()), 0), db.channel, db.origin];
  for (let attempt = 1; ; attempt++) {
    try {
      // one row per end written (its order, from 1), or one with a null order for none
      const rows = await db.query<{ adaptive: boolean; ord: number | null }>(ENDS_ALONE, params);
      state.adaptive = rows[0]!.adaptive;
      state.endsFailed = false;
      if (state.adaptive) return null;
      const written = new Set(rows.map((r) => r.ord));
      return finishes.filter((_, i) => written.has(i + 1));
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
  if (finishes.length === 0) return claimTx(db, input, clockOffset);
  const ends =
    (alone(finishes) ? await writeEnds(db, finishes, input, state) : null) ??
    (await endsTx(db, input, finishes, clockOffset));
  if (input.claimMax <= 0) return { claimed: [], applied: ends, nextWakeAt: null };
  for (const f of ends) state.committed.add(f);
  const out = await claimTx(db, input, clockOffset);
  for (const f of ends) state.committed.delete(f);
  return { ...out, applied: ends };
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
  finishes: readonly Finish[],
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
      // An adaptive group appeared: its learning from the ends goes under the lock, before a
      // claim of the rest that uses it.
      const applied = await endsTx(db, input, finishes, clockOffset);
      for (const f of applied) state.committed.add(f);
      const more = input.claimMax - first.claimed.length;
      const rest = more > 0 ? await claimTx(db, { ...input, claimMax: more }, clockOffset) : null;
      out = {
        claimed: [...first.claimed, ...(rest?.claimed ?? [])],
        applied,
        nextWakeAt: earliest(first.nextWakeAt, rest?.nextWakeAt ?? null),
      };
    } else {
      out = first.bound ? await claimTx(db, input, clockOffset) : first;
      out = { ...out, applied: ends };
    }
    for (const f of out.applied) state.committed.delete(f);
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

/** A tick's ends under the claim lock, committed on their own (tick.ts); the ones written. */
const endsTx = (db: PgDb, input: TickInput, finishes: readonly Finish[], clockOffset: number) =>
  db.tx((q, opened) => endsLocked(q, { ...input, finishes }, opened, clockOffset), endsOpening(db.schema));
