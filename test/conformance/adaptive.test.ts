/**
 * Adaptive groups: what a group learns from throttles is written with the outcomes, shared by
 * every connection on the queue, and applied by the claim; it stays under the caps, and is
 * forgotten on request.
 */
import { describe, expect, it } from 'vitest';
import { ADAPTIVE_HISTORY, type GroupInfo } from '../../shared/domain.ts';
import type { Finish } from '../../electron/core/store/task-store.ts';
import { A, B, backends, claim, done, ended, finish, freshQueue, tasks, type Store } from './harness.ts';

const RATE = { limit: 10, periodMs: 1000 };

async function group(store: Store, name: string, now: number): Promise<GroupInfo> {
  return (await store.stats(now, 0)).groups.find((g) => g.name === name)!;
}

type FailedFinish = Exclude<Finish, { status: 'done' }>;

const throttle = (
  c: Parameters<typeof done>[0],
  at: number,
  more: Partial<FailedFinish> = {},
): FailedFinish => ({
  ...(ended(c, 'retrying', 'retry-after', {
    error: 'GET api.example/x -> 429; waiting 1 s (Retry-After: 1)',
    runAt: at + 1000,
    blockGroupUntil: at + 1000,
  }) as FailedFinish),
  ...more,
});

describe.each(backends)('adaptive groups on $name', (backend) => {
  it('starts at its caps, evenly spaced, and a throttle lowers the limit for every connection', async () => {
    const { store, connect } = await freshQueue(backend);
    const other = await connect();
    const set = await store.updateGroup('api', { adaptive: true, concurrency: 4, rate: RATE });
    expect(set.adaptive).toMatchObject({ concurrency: 4, rate: 10, ceiling: null, lastThrottleAt: null });
    await store.enqueue(tasks(20, { group: 'api' }), 0);
    // 10 a second is one start every 100 ms, not a burst of 10
    const [first] = await claim(store, A, 10, 10_000);
    expect(await claim(other, B, 10, 10_050)).toEqual([]);
    const [second] = await claim(other, B, 10, 10_100);
    expect(second).toBeDefined();

    await finish(store, A, 10_150, throttle(first!, 10_150));
    const seen = await group(other, 'api', 10_150);
    expect(seen.adaptive!.rate).toBeCloseTo(7);
    expect(seen.adaptive!.concurrency).toBe(2); // 4 * 0.7, whole tasks
    expect(seen.adaptive!.ceiling).toBeCloseTo(10);
    expect(seen.adaptive!.lastThrottle).toContain('429');
    expect(Math.abs(seen.adaptive!.lastThrottleAt! - 10_150)).toBeLessThan(1000);
    expect(seen.adaptive!.history.at(-1)).toMatchObject({ concurrency: 2 });
    // The caps are what the user set; only the learned values moved.
    expect(seen).toMatchObject({ concurrency: 4, rate: RATE });

    // A second 429 answering a request sent before the cut is not cut for again.
    await finish(other, B, 10_200, throttle(second!, 10_200));
    expect((await group(store, 'api', 10_200)).adaptive!.rate).toBeCloseTo(7);
  });

  it('claims by the lowered concurrency on another connection', async () => {
    const { store, connect } = await freshQueue(backend);
    const other = await connect();
    await store.updateGroup('api', { adaptive: true, concurrency: 2, rate: null });
    await store.enqueue(tasks(6, { group: 'api' }), 0);
    const running = await claim(store, A, 10, 10_000);
    expect(running).toHaveLength(2);
    await finish(store, A, 10_010, throttle(running[0]!, 10_010, { runAt: 10_010, blockGroupUntil: 10_010 }));
    // 2 * 0.7 = 1.4: one at a time, and one is still running
    expect((await group(other, 'api', 10_020)).adaptive!.concurrency).toBe(1);
    expect(await claim(other, B, 10, 10_020)).toEqual([]);
    await finish(store, A, 10_030, done(running[1]!));
    expect(await claim(other, B, 10, 10_040)).toHaveLength(1);
  });

  it('grows back with successes, never above its caps', async () => {
    const { store } = await freshQueue(backend);
    await store.updateGroup('api', { adaptive: true, rate: RATE });
    await store.enqueue(tasks(40, { group: 'api' }), 0);
    let now = 10_000;
    const [c] = await claim(store, A, 1, now);
    await finish(store, A, (now += 10), throttle(c!, now));
    const cut = (await group(store, 'api', now)).adaptive!.rate!;
    expect(cut).toBeCloseTo(7);
    let last = cut;
    for (let i = 0; i < 30; i++) {
      now += 2000;
      const [t] = await claim(store, A, 1, now);
      await finish(store, A, now + 10, done(t!));
      const rate = (await group(store, 'api', now + 10)).adaptive!.rate!;
      expect(rate).toBeGreaterThanOrEqual(last);
      expect(rate).toBeLessThanOrEqual(RATE.limit);
      last = rate;
    }
    expect(last).toBe(RATE.limit);
  });

  it('holds no adaptive group for a guessed wait, while the task still waits it', async () => {
    const { store } = await freshQueue(backend);
    await store.updateGroup('learns', { adaptive: true, rate: RATE });
    await store.updateGroup('fixed', { rate: RATE });
    await store.enqueue([...tasks(1, { group: 'learns' }, 'l'), ...tasks(1, { group: 'fixed' }, 'f')], 0);
    const claimed = await claim(store, A, 10, 10_000);
    expect(claimed).toHaveLength(2);
    const guessed = (c: (typeof claimed)[number]) =>
      throttle(c, 10_010, { runAt: 40_010, blockGroupUntil: 40_010, waitGuessed: true });
    const applied = await finish(store, A, 10_010, ...claimed.map(guessed));
    expect(applied).toHaveLength(2);
    const byGroup = (name: string) => claimed.find((c) => c.task.group === name)!.task.id;
    expect((await store.getTask(byGroup('learns')))!.runAt).toBe(40_010);
    expect((await group(store, 'learns', 10_020)).blockedUntil).toBeNull();
    // A group with fixed limits still waits what Semaforo guessed.
    expect((await store.getTask(byGroup('fixed')))!.runAt).toBe(40_010);
    expect((await group(store, 'fixed', 10_020)).blockedUntil).not.toBeNull();
  });

  it('forgets what it learned on reset and when turned off, and keeps a bounded history', async () => {
    const { store } = await freshQueue(backend);
    const made = await store.updateGroup('api', { adaptive: true });
    // learning a rate needs one: a group made adaptive without a rate cap gets 50/s
    expect(made.rate).toEqual({ limit: 50, periodMs: 1000 });
    await store.enqueue(tasks(ADAPTIVE_HISTORY + 6, { group: 'api' }), 0);
    let now = 10_000;
    for (let i = 0; i < ADAPTIVE_HISTORY + 5; i++) {
      now += 2100; // past the hold-off after a cut (two start intervals at 1/s)
      const [c] = await claim(store, A, 1, now);
      await finish(store, A, now, throttle(c!, now, { runAt: now, blockGroupUntil: now }));
    }
    const learned = (await group(store, 'api', now)).adaptive!;
    expect(learned.rate).toBe(1);
    expect(learned.history).toHaveLength(ADAPTIVE_HISTORY);
    expect(learned.history.at(-1)!.at).toBeGreaterThan(learned.history[0]!.at);

    // Setting it adaptive again (changing a cap) keeps what it learned.
    await store.updateGroup('api', { adaptive: true, concurrency: 5 });
    expect((await group(store, 'api', now)).adaptive!.rate).toBe(1);

    const reset = await store.updateGroup('api', { forgetLearned: true });
    expect(reset.adaptive).toMatchObject({ rate: 50, concurrency: 5, lastThrottleAt: null, history: [] });

    await finish(store, A, now, throttle((await claim(store, A, 1, now + 5000))[0]!, now + 5000));
    const off = await store.updateGroup('api', { adaptive: false });
    expect(off.adaptive).toBeNull();
    const on = await store.updateGroup('api', { adaptive: true });
    expect(on.adaptive).toMatchObject({ rate: 50, lastThrottleAt: null, history: [] });
  });

  it('learns from a used-up quota and a throttle past its budget, and converts a new period', async () => {
    const { store } = await freshQueue(backend);
    await store.updateGroup('api', { adaptive: true, rate: RATE });
    await store.enqueue(tasks(4, { group: 'api' }), 0);
    // a success whose vendor said the quota is used up: the group is held, and it is a throttle
    const [a] = await claim(store, A, 1, 10_000);
    await finish(store, A, 10_010, { ...done(a!), blockGroupUntil: 10_500 });
    const quota = (await group(store, 'api', 10_010)).adaptive!;
    expect(quota.rate).toBeCloseTo(7);
    expect(quota.lastThrottle).toContain('quota');
    // a 429 on a task past its Retry-After budget is a plain retry, and still a throttle
    const [b] = await claim(store, A, 1, 12_000);
    const past = ended(b!, 'retrying', 'retry', { error: 'GET x -> 429', runAt: 13_000 });
    await finish(store, A, 12_010, { ...past, throttled: true } as Finish);
    expect((await group(store, 'api', 12_010)).adaptive!.rate).toBeCloseTo(4.9);
    // 4.9 a second is 294 a minute: a cap given per minute keeps the same speed
    const perMinute = await store.updateGroup('api', { rate: { limit: 600, periodMs: 60_000 } });
    expect(perMinute.adaptive!.rate).toBeCloseTo(294);
    expect(perMinute.adaptive!.ceiling).toBeCloseTo(420);
  });
});
