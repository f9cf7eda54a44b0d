import { describe, expect, it } from 'vitest';
import {
  metricsOf,
  percentile,
  summarise,
  type FinishedTask,
} from '../../electron/core/policy/metrics-math.ts';

const task = (over: Partial<FinishedTask>): FinishedTask => ({
  kind: 'sleep',
  group: 'default',
  status: 'done',
  startedAt: 0,
  finishedAt: 100,
  ...over,
});

describe('percentile', () => {
  it('takes the nearest rank from below, and null for no values', () => {
    const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(ten, 0.5)).toBe(6);
    expect(percentile(ten, 0.95)).toBe(10);
    expect(percentile(ten, 0)).toBe(1);
    expect(percentile(ten, 1)).toBe(10);
    expect(percentile([42], 0.95)).toBe(42);
    expect(percentile([], 0.5)).toBeNull();
  });
});

describe('summarise', () => {
  it('counts, rates and percentiles per key over the window', () => {
    const rows = summarise(
      [
        task({ startedAt: 0, finishedAt: 30 }),
        task({ startedAt: 0, finishedAt: 10 }),
        task({ status: 'failed', startedAt: 0, finishedAt: 20 }),
        task({ kind: 'http', status: 'failed', startedAt: null, finishedAt: 5 }),
      ],
      (t) => t.kind,
      2000,
    );
    expect(rows).toEqual([
      {
        key: 'sleep',
        finished: 3,
        done: 2,
        failed: 1,
        throughput: 1.5,
        failureRate: 1 / 3,
        avgMs: 20,
        p50Ms: 20,
        p95Ms: 30,
      },
      // never started: counted, but no duration
      {
        key: 'http',
        finished: 1,
        done: 0,
        failed: 1,
        throughput: 0.5,
        failureRate: 1,
        avgMs: null,
        p50Ms: null,
        p95Ms: null,
      },
    ]);
  });

  it('gives a failure rate of 0 and no rows when nothing finished', () => {
    expect(metricsOf([], 60_000)).toEqual({ windowMs: 60_000, byKind: [], byGroup: [] });
  });

  it('groups the same tasks by kind and by group', () => {
    const m = metricsOf([task({ group: 'a' }), task({ group: 'b', kind: 'http' })], 1000);
    expect(m.byKind.map((r) => r.key)).toEqual(['sleep', 'http']);
    expect(m.byGroup.map((r) => r.key)).toEqual(['a', 'b']);
  });
});
