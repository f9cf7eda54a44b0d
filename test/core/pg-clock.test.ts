/**
 * The host's offset to the database's clock: a real skew is measured, and an offset within the
 * round trip's own error is none, so connections of one host never disagree by their jitter.
 */
import { describe, expect, it } from 'vitest';
import { measureClockOffset } from '../../electron/core/store/postgres/pg-clock.ts';

/** A database whose clock reads `skew` ms past the host's, reached over round trips of `rtts`. */
function fakeDb(skew: number, rtts: number[]) {
  let host = 1_000_000;
  let call = 0;
  const clock = () => host;
  const db = {
    query: async <R extends object>(): Promise<R[]> => {
      const rtt = rtts[call++ % rtts.length]!;
      host += rtt / 3; // the query reaches the server
      const at = Math.floor(host + skew);
      host += (2 * rtt) / 3; // the answer comes back
      return [{ at: String(at) } as unknown as R]; // bigint comes back as text
    },
  };
  return { db, clock };
}

describe('measureClockOffset', () => {
  it('is 0 when the database read its clock between the host readings, however slow the trip', async () => {
    for (const rtts of [[0.4], [80, 60, 95], [3, 250, 40]]) {
      const { db, clock } = fakeDb(0, rtts);
      expect(await measureClockOffset(db, clock)).toBe(0);
    }
  });

  it('measures a skew larger than the round trip, from the fastest trip', async () => {
    const ahead = fakeDb(5_000, [40, 2, 30]);
    expect(Math.abs((await measureClockOffset(ahead.db, ahead.clock)) - 5_000)).toBeLessThanOrEqual(1);
    const behind = fakeDb(-120, [10, 12, 11]);
    expect(Math.abs((await measureClockOffset(behind.db, behind.clock)) + 120)).toBeLessThanOrEqual(5);
  });
});
