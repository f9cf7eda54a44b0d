/**
 * The host's offset to the database's clock. The contract's times are the host's (every stamp on
 * a task is written with them, and tests drive them), but what every host of a queue compares
 * with everyone else's stamps, the rate-window log and Retry-After blocks, must be on one clock,
 * or a host running minutes ahead prunes the others' starts out of the window and sees every
 * cool-down as over. That one clock is the database's: a host adds its offset to its own time
 * to write and judge those (claim.ts, tick.ts).
 *
 * Measured at open and again at every clock-step check (the reaper's), from the fastest of a
 * few round trips (its error is half of that one). Always applied, however small: a rate window
 * of one second is broken by hosts 900 ms apart as surely as by hosts minutes apart. One
 * measurement serves every store of a process on one database and host clock (sharedClockOffset):
 * each measuring its own, two connections of one host judged a 100 ms rate spacing a few ms
 * apart on a loaded machine, by the jitter of their round trips alone.
 */
import type { Queryable } from './db.ts';

const SAMPLES = 3;

export async function measureClockOffset(
  db: Pick<Queryable, 'query'>,
  hostClock: () => number,
): Promise<number> {
  let best = { rtt: Infinity, offset: 0 };
  for (let i = 0; i < SAMPLES; i++) {
    const before = hostClock();
    const [row] = await db.query<{ at: number }>('SELECT now_ms() AS at');
    const after = hostClock();
    if (after - before < best.rtt)
      best = { rtt: after - before, offset: Math.round(Number(row!.at) - (before + after) / 2) };
  }
  return best.offset;
}

/** The offset every store of this process on one database shares; a new measurement moves it for all. */
export interface SharedOffset {
  value: number;
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
  const measured = { value: await measureClockOffset(db, hostClock) };
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
