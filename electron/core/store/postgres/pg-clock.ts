/**
 * The host's offset to the database's clock. The contract's times are the host's (every stamp on
 * a task is written with them, and tests drive them), but what every host of a queue compares
 * with everyone else's stamps, the rate-window log and Retry-After blocks, must be on one clock,
 * or a host running minutes ahead prunes the others' starts out of the window and sees every
 * cool-down as over. That one clock is the database's: a host adds its offset to its own time
 * to write and judge those (claim.ts, tick.ts).
 *
 * Measured at open and again at every clock-step check (the reaper's), from the fastest of a
 * few round trips (its error is half of that one, plus the clocks' whole milliseconds). Always
 * applied, however small: a rate window of one second is broken by hosts 900 ms apart as surely as
 * by hosts minutes apart. A new measurement that agrees with the one in use within their errors
 * leaves it alone: taken at each check, their jitter moved this host's idea of the database's time
 * by a few ms, and a window judged after a move forward ended that much early (a demo's eleventh
 * start 59,997 ms after the first, at 10 a minute). One
 * measurement serves every store of a process on one database and host clock (sharedClockOffset):
 * each measuring its own, two connections of one host judged a 100 ms rate spacing a few ms
 * apart on a loaded machine, by the jitter of their round trips alone.
 */
import type { Queryable } from './db.ts';

const SAMPLES = 3;

/** An offset (ms to add to the host's time) and how far off it may be (ms). */
export interface OffsetReading {
  value: number;
  error: number;
}

export async function measureClockOffset(
  db: Pick<Queryable, 'query'>,
  hostClock: () => number,
): Promise<OffsetReading> {
  let best = { rtt: Infinity, offset: 0 };
  for (let i = 0; i < SAMPLES; i++) {
    const before = hostClock();
    const [row] = await db.query<{ at: number }>('SELECT now_ms() AS at');
    const after = hostClock();
    if (after - before < best.rtt)
      best = { rtt: after - before, offset: Math.round(Number(row!.at) - (before + after) / 2) };
  }
  // now_ms() and the host's clock are whole milliseconds, and the offset is rounded: 2 ms more.
  return { value: best.offset, error: best.rtt / 2 + 2 };
}

/** The offset every store of this process on one database shares; a new measurement moves it for all. */
export type SharedOffset = OffsetReading;

/**
 * Takes a new measurement into `offset`: only if the clocks really moved (the two disagree
 * beyond their errors), or if it is much more precise (a rough first one, taken on a loaded
 * machine, is not kept forever; the move is within the rough one's error).
 */
export function takeReading(offset: SharedOffset, reading: OffsetReading): void {
  const agree = Math.abs(reading.value - offset.value) <= reading.error + offset.error;
  if (agree && reading.error * 2 > offset.error) return;
  offset.value = reading.value;
  offset.error = reading.error;
}

const shared = new WeakMap<() => number, Map<string, SharedOffset>>();

/** The offset of the database `key` names, measured by the first store of this process to ask. */
export async function sharedClockOffset(
  db: Pick<Queryable, 'query'>,
  key: string,
  hostClock: () => number,
): Promise<SharedOffset> {
  let byKey = shared.get(hostClock);
  if (byKey === undefined) shared.set(hostClock, (byKey = new Map()));
  const known = byKey.get(key);
  if (known !== undefined) return known;
  const measured = await measureClockOffset(db, hostClock);
  const first = byKey.get(key) ?? measured; // two stores opened at once: one holder
  byKey.set(key, first);
  return first;
}

/** Beyond this, due times written by one host are visibly off on the others (see offsetWarning). */
const WARN_MS = 1000;

/**
 * What to tell the user of a host whose clock is off, or null. Due times (run_at) stay on each
 * host's own clock, as the contract's times are (docs/ARCHITECTURE.md, "Clocks"): a task this
 * host enqueues to run now waits that long on a host behind it, and one it delays starts early
 * on a host ahead.
 */
export function offsetWarning(offset: number): string | null {
  if (Math.abs(offset) < WARN_MS) return null;
  const s = (Math.abs(offset) / 1000).toFixed(1);
  return (
    `this host's clock is ${s} s ${offset < 0 ? 'ahead of' : 'behind'} the database's: due times it writes ` +
    `are off by as much on the other hosts (sync its clock, e.g. with NTP)`
  );
}

/**
 * A time as the bigint columns hold it. The contract's times are numbers, and a fractional one
 * (a Retry-After of 1.5 s from a header, a clock read from performance.now) would be refused by
 * the server; a moment is rounded, a time to wait until is rounded up, so no wait gets shorter.
 */
export const atMs = (t: number): number => Math.round(t);
export const untilMs = (t: number): number => Math.ceil(t);
