/** Change events: one batch per interval however many tasks change, and at once at no interval. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ChangeBatch, ChangeCoalescer } from '../../electron/core/events.ts';

describe('change coalescing', () => {
  it('hears every change of a turn in one batch', async () => {
    const c = new ChangeCoalescer(0);
    const heard: ChangeBatch[] = [];
    c.subscribe((b) => heard.push(b));
    c.add([1, 2]);
    c.add([3], true);
    await new Promise((r) => setImmediate(r));
    expect(heard).toEqual([{ taskIds: [1, 2, 3], external: true }]);
    c.close();
  });

  it('at no interval, tells before any timer could: a `semaforo run` hears its task end at once', async () => {
    const order = await new Promise<string[]>((resolve) => {
      // From an I/O callback, as a finish's commit is: what runs "at the end of this turn" comes
      // before the next timer, so a 0 ms timer here would lose to the 1 ms one set after it.
      fs.stat('.', () => {
        const c = new ChangeCoalescer(0);
        const seen: string[] = [];
        c.subscribe(() => seen.push('batch'));
        c.add([7]);
        setTimeout(() => {
          seen.push('1 ms timer');
          c.close();
          resolve(seen);
        }, 1);
      });
    });
    expect(order).toEqual(['batch', '1 ms timer']);
  });

  it('holds later batches to the interval', async () => {
    const c = new ChangeCoalescer(60_000);
    const heard: number[][] = [];
    c.subscribe((b) => heard.push(b.taskIds));
    c.add([1]);
    await new Promise((r) => setImmediate(r));
    c.add([2]);
    await new Promise((r) => setTimeout(r, 20));
    expect(heard).toEqual([[1]]);
    c.flush();
    expect(heard).toEqual([[1], [2]]);
    c.close();
  });
});
