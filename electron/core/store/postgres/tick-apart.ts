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
 * same round trip.
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
): Promise<Finish[] | null> {
  const params = [...finishDoneParams(finishes, atMs(input.now()), input.worker), db.channel, db.origin];
  for (let attempt = 1; ; attempt++) {
    try {
      // one row per end written, or one with a null id for none
      const rows = await db.query<{ adaptive: boolean; id: number | null }>(ENDS_ALONE, params);
      if (rows[0]!.adaptive) return null;
      const ids = new Set(rows.map((r) => r.id));
      return finishes.filter((f) => ids.has(f.taskId));
    } catch (e) {
      if (attempt < ATTEMPTS && pgCode(e) === DEADLOCK) continue;
      throw db.translate(e);
    }
  }
}

export async function tickApart(
  db: PgDb,
  input: TickInput,
  clockOffset: number,
  /** finishes committed by an earlier tick whose claim failed */
  committed: WeakSet<Finish>,
): Promise<TickOutput> {
  const earlier = input.finishes.filter((f) => committed.has(f));
  const finishes = earlier.length === 0 ? input.finishes : input.finishes.filter((f) => !committed.has(f));
  const ends = alone(finishes) ? await writeEnds(db, finishes, input) : null;
  const rest = ends === null ? finishes : [];
  let out: TickOutput;
  if (ends !== null && input.claimMax <= 0) out = { claimed: [], applied: [], nextWakeAt: null };
  else {
    for (const f of ends ?? []) committed.add(f);
    out =
      rest.length === 0
        ? await db.tx((q, limits) => claimAlone(q, input, limits, clockOffset), claimOpening(db.schema))
        : await db.tx(
            (q, opened) => tick(q, { ...input, finishes: rest }, opened, clockOffset),
            tickOpening(db.schema),
          );
    for (const f of ends ?? []) committed.delete(f);
  }
  const applied = [...earlier, ...(ends ?? []), ...out.applied];
  return applied.length === out.applied.length ? out : { ...out, applied };
}
