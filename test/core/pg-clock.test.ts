/**
 * The host's offset to the database's clock: measured from the fastest round trip (right under
 * symmetric delays, however long), and shared by the stores of one process on one database, so
 * two connections of one host never judge a rate window apart by their own jitter.
 */
import { describe, expect, it } from 'vitest';
import { measureClockOffset, sharedClockOffset } from '../../electron/core/store/postgres/pg-clock.ts';

/** A database whose clock reads `skew` ms past the host's, `ways[i]` ms away each way on trip i. */
function fakeDb(skew: number, ways: number[]) {
  let host = 1_000_000;
  let calls = 0;
  const clock = () => host;
  const db = {
    query: async <R extends object>(): Promise<R[]> => {
      const way = ways[calls++ % ways.length]!;
      host += way;
      const at = Math.floor(host + skew);
      host += way;
      return [{ at: String(at) } as unknown as R]; // bigint comes back as text
    },
  };
  return { db, clock, calls: () => calls };
}

describe('measureClockOffset', () => {
  it('measures a skew from the fastest trip, also one under the round trip of a far database', async () => {
    for (const [skew, ways] of [
      [0, [0.2]],
      [5_000, [20, 1, 15]],
      [-120, [5, 6, 5]],
      [30, [100, 100, 100]], // a database 200 ms away, hosts 30 ms apart
      [-90, [100, 120, 100]],
    ] as const) {
      const { db, clock } = fakeDb(skew, [...ways]);
      expect(Math.abs((await measureClockOffset(db, clock)) - skew), `${skew}`).toBeLessThanOrEqual(1);
    }
  });
});

describe('sharedClockOffset', () => {
  it('measures once per database and host clock in a process; a new measurement moves it for all', async () => {
    const { db, clock, calls } = fakeDb(40, [3]);
    const a = await sharedClockOffset(db, 'postgres://h/db\0q1', clock);
    const measured = calls();
    const b = await sharedClockOffset(db, 'postgres://h/db\0q1', clock);
    expect(b).toBe(a);
    expect(calls()).toBe(measured);
    a.value = 7;
    expect(b.value).toBe(7);
    // another schema, or another host clock (a test playing a skewed host): measured apart
    expect(await sharedClockOffset(db, 'postgres://h/db\0q2', clock)).not.toBe(a);
    const other = fakeDb(-500, [3]);
    expect((await sharedClockOffset(other.db, 'postgres://h/db\0q1', other.clock)).value).toBe(-500);
  });
});
