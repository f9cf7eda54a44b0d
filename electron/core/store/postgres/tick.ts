/**
 * The dispatcher's tick, as SQLite's (../sqlite/tick.ts): write the ends of finished attempts
 * (tick-ends.ts: one statement, however many and of whatever kind), then claim (claim.ts). Each
 * is a transaction of its own holding the claim lock, the ends committed first, or the ends go
 * without the lock (tick-apart.ts says when); the claim then sees the slots they freed.
 *
 * A transaction first takes this queue's claim lock (a transaction-level advisory lock, gone
 * at commit or rollback, also when the connection dies), and only then reads the clock: a time
 * read before waiting for the lock can be old by the wait, and starts stamped out of commit
 * order would let another host's rate check miss starts it must count.
 */
import type { Finish, TickInput, TickOutput } from '../task-store.ts';
import { ADAPTIVE_ROWS, adaptiveFrom, learn, withoutGuessedWaits } from './adaptive-learning.ts';
import { claimReady, LIMITS, type ClaimInput } from './claim.ts';
import type { Queryable } from './db.ts';
import { atMs, untilMs } from './pg-clock.ts';
import { writeTickEnds } from './tick-ends.ts';

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
 * What the transaction of a tick's ends runs right after BEGIN, in the same round trip (Db.tx's
 * `opening`): the claim lock, then the adaptive groups, read in a statement of their own so its
 * snapshot comes after the lock.
 */
export function endsOpening(schema: string): string {
  return `${claimLock(schema)}; ${ADAPTIVE_ROWS}`;
}

/**
 * What a claim's transaction runs right after BEGIN (tick-apart.ts): the claim lock, then the
 * limits it decides with, in the same round trip. No finish in it, so nothing to learn.
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

/**
 * A tick's ends, in a transaction of their own opened with endsOpening(schema), whose last rows
 * are `opened`: the finishes it wrote (as given: the caller knows them by identity). Its claim
 * comes after its commit (tick-apart.ts).
 */
export async function endsLocked(
  q: Queryable,
  input: TickInput,
  opened: readonly object[],
  /** the host's offset to the database's clock, ms (pg-clock.ts) */
  clockOffset: number,
): Promise<Finish[]> {
  // Read with the lock held (see TickInput.now).
  const now = atMs(input.now());
  // Adaptive groups learn from this tick's outcomes before its claim uses what they learned.
  const adaptive = adaptiveFrom(opened);
  const finishes = await withoutGuessedWaits(q, input.finishes, adaptive);
  const written = await writeTickEnds(q, finishes, input.worker, now, clockOffset);
  if (written.length === 0) return [];
  await learn(q, written, adaptive, Math.round(now + clockOffset));
  q.changed();
  const given = new Map(finishes.map((f, i) => [f, input.finishes[i]!]));
  return finishes === input.finishes ? written : written.map((f) => given.get(f)!);
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
