/** nap.ts: a sub-millisecond sleep that does not spin, for the change watch's quick looks. */
import { describe, expect, it } from 'vitest';
import { nap } from '../../electron/core/nap.ts';
import { monotonicMs } from '../../electron/core/clock.ts';

describe('nap', () => {
  it('sleeps at least the fraction of a millisecond asked for, on a Node main thread', () => {
    const cpu = process.cpuUsage();
    const t = monotonicMs();
    for (let i = 0; i < 100; i++) expect(nap(0.5)).toBe(true);
    const slept = monotonicMs() - t;
    expect(slept).toBeGreaterThanOrEqual(50);
    // Asleep, not spinning: the CPU used is a small part of the time slept (a busy loop would
    // use all of it).
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(slept / 2);
  });
});
