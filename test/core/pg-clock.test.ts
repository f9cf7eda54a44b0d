/**
 * The host's offset to the database's clock: measured from the fastest round trip (right under
 * symmetric delays, however long), and shared by the stores of one process on one database, so
 * two connections of one host never judge a rate window apart by their own jitter.
 */
import { describe, expect, it } from 'vitest';
import {
  measureClockOffset,
  sharedClockOffset,
  takeReading,
} from '../../electron/core/store/postgres/pg-clock.ts';

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
      const m = await measureClockOffset(db, clock);
      expect(Math.abs(m.value - skew), `${skew}`).toBeLessThanOrEqual(1);
      expect(m.error, `${skew}`).toBeCloseTo(Math.min(...ways) + 2); // half the fastest round trip, + 2 ms
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

describe('takeReading', () => {
  it('keeps the offset while new measurements agree with it within their errors', async () => {
    // A database 2-5 ms away, the two ways unequal, its clock 40.6 ms ahead: readings jitter.
    let host = 1_000_000;
    let trip = 0;
    const clock = () => host;
    const db = {
      query: async <R extends object>(): Promise<R[]> => {
        const [out, back] = [
          [2, 4],
          [4, 2],
          [3, 3],
          [2.5, 4.5],
          [5, 2],
        ][trip++ % 5]!;
        host += out!;
        const at = Math.floor(host + 40.6);
        host += back!;
        return [{ at: String(at) } as unknown as R];
      },
    };
    const offset = await sharedClockOffset(db, 'postgres://h/db\0jitter', clock);
    const first = offset.value;
    const seen = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const m = await measureClockOffset(db, clock);
      seen.add(m.value);
      takeReading(offset, m);
      expect(offset.value).toBe(first);
    }
    expect(seen.size).toBeGreaterThan(1); // the readings did move; the offset in use did not
  });

  it('takes a reading that disagrees beyond the errors (the clock stepped), or a much finer one', () => {
    const offset = { value: 40, error: 4 };
    takeReading(offset, { value: 46, error: 3 }); // within 4 + 3
    expect(offset).toEqual({ value: 40, error: 4 });
    takeReading(offset, { value: 540, error: 3 }); // this host's clock stepped back half a second
    expect(offset).toEqual({ value: 540, error: 3 });
    const rough = { value: 100, error: 41 }; // a first reading on a loaded machine
    takeReading(rough, { value: 120, error: 2 });
    expect(rough).toEqual({ value: 120, error: 2 });
  });
});
