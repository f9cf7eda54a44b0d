import { describe, expect, it } from 'vitest';
import type { GroupInfo, Stats, Task } from '../../shared/domain.ts';
import { afterWaiting, waitingSentence, whyWaiting, type WaitContext } from '../../shared/why-waiting.ts';

const NOW = Date.parse('2026-12-04T14:32:00Z');
const none = { pending: 0, running: 0, retrying: 0, done: 0, failed: 0, cancelled: 0 };

function task(over: Partial<Task> = {}): Task {
  return {
    id: 7,
    kind: 'http',
    name: 'poll',
    group: 'vendor',
    priority: 5,
    status: 'pending',
    attempts: 0,
    maxAttempts: 3,
    payload: {},
    result: null,
    error: null,
    runAt: NOW - 1000,
    timeout: null,
    unique: null,
    createdAt: NOW - 5000,
    startedAt: null,
    finishedAt: null,
    progress: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    cancelRequested: false,
    retryAfterCount: 0,
    reservedFor: null,
    scheduleId: null,
    uses: [],
    ...over,
  };
}

function ctx(group: Partial<GroupInfo> = {}, over: { running?: number; paused?: boolean } = {}): WaitContext {
  const g: GroupInfo = {
    name: 'vendor',
    concurrency: null,
    rate: null,
    paused: false,
    blockedUntil: null,
    counts: { ...none },
    rateUsed: 0,
    rateFreeAt: null,
    burst: null,
    adaptive: null,
    ...group,
  };
  const stats: Pick<Stats, 'counts' | 'settings' | 'groups'> = {
    counts: { ...none, running: over.running ?? 0 },
    settings: {
      globalConcurrency: 3,
      paused: over.paused ?? false,
      retentionDays: 30,
      notifications: { enabled: true, groups: null },
      failureWebhook: null,
      durability: 'results',
    },
    groups: [g],
  };
  return { stats, now: NOW };
}

describe('why a task waits', () => {
  it('says nothing of a task that runs or has ended', () => {
    for (const status of ['running', 'done', 'failed', 'cancelled'] as const)
      expect(whyWaiting(task({ status }), ctx())).toBeNull();
  });

  it('names each reason, in the order the claim checks them', () => {
    const cases: [Task, WaitContext, string, unknown, number?][] = [
      [
        task({ reservedFor: 'run@host:42:ab' }),
        ctx(),
        'reserved',
        'held for the `semaforo run` run@host:42:ab, which runs the command itself',
      ],
      [task(), ctx({}, { paused: true }), 'queue-paused', 'the queue is paused (semaforo resume)'],
      [task(), ctx({ paused: true }), 'group-paused', 'group vendor is paused (semaforo resume vendor)'],
      [
        task({ status: 'retrying', retryAfterCount: 1, error: 'HTTP 429 Too Many Requests\nslow down' }),
        ctx({ blockedUntil: NOW + 90_000 }),
        'cooling-down',
        'group vendor cools down after the vendor asked to wait: starts in 1m30s; last said: HTTP 429 Too Many Requests',
        NOW + 90_000,
      ],
      [
        task({ status: 'retrying', attempts: 1, runAt: NOW + 25_000 }),
        ctx(),
        'backoff',
        'retry backoff after attempt 1 of 3: next in 25s',
        NOW + 25_000,
      ],
      [task({ runAt: NOW + 600_000 }), ctx(), 'delayed', 'delayed: runs in 10m', NOW + 600_000],
      [task(), ctx({}, { running: 3 }), 'global-full', 'the global limit is full (3 of 3 running)'],
      [
        task(),
        ctx({ concurrency: 1, counts: { ...none, running: 1 } }),
        'group-full',
        'group vendor is full (1 of 1 running)',
      ],
      [
        task(),
        ctx({ rate: { limit: 5, periodMs: 1000 }, rateUsed: 1, rateFreeAt: NOW + 150 }),
        'rate-window',
        'group vendor is at its rate (5/s, evenly spaced, one every 200ms): next start in 150ms',
        NOW + 150,
      ],
      [
        task(),
        ctx({ rate: { limit: 5, periodMs: 1000 }, burst: 5, rateUsed: 5, rateFreeAt: NOW + 400 }),
        'rate-window',
        'group vendor is at its rate (5/s, bursts of 5): next start in 400ms',
        NOW + 400,
      ],
      [
        task(),
        { ...ctx(), kinds: ['shell'] },
        'no-worker',
        expect.stringContaining('no worker here has kind "http"'),
      ],
      [
        task(),
        ctx(),
        'ready',
        'ready: starts when a worker claims it (is `semaforo work` or the tray app running?)',
      ],
    ];
    for (const [t, c, code, message, until] of cases) {
      const why = whyWaiting(t, c);
      expect(why, code).toMatchObject(until === undefined ? { code, message } : { code, message, until });
      expect(why!.short.length, code).toBeLessThanOrEqual(24);
      if (until === undefined) expect(why!.until, code).toBeUndefined();
    }
  });

  it('says "waiting" once, whether or not a reason starts with it', () => {
    const gate = whyWaiting(task(), {
      ...ctx(),
      closedGates: [{ group: 'vendor', reason: 'load 1.9 per core > 0.8' }],
    })!.message;
    expect(gate).toBe("waiting: load 1.9 per core > 0.8 (group vendor's machine gate, on this machine)");
    // after show's "waiting" label
    expect(afterWaiting(gate)).toBe("load 1.9 per core > 0.8 (group vendor's machine gate, on this machine)");
    expect(afterWaiting('waiting for gpu: no such resource')).toBe('for gpu: no such resource');
    expect(afterWaiting('group vendor is full (1 of 1 running)')).toBe(
      'group vendor is full (1 of 1 running)',
    );
    // as run's sentence
    expect(waitingSentence(gate)).toBe(gate);
    expect(waitingSentence('waiting for gpu: no such resource')).toBe('waiting for gpu: no such resource');
    expect(waitingSentence('the queue is paused (semaforo resume)')).toBe(
      'waiting: the queue is paused (semaforo resume)',
    );
  });

  it("does not count a run's own reservation as a reason for that run", () => {
    const t = task({ reservedFor: 'run@host:42:ab' });
    expect(whyWaiting(t, { ...ctx({}, { running: 3 }), holder: 'run@host:42:ab' })?.code).toBe('global-full');
  });

  it('blames an adaptive limit only when it is what holds the task', () => {
    const learned = (concurrency: number, rate: number) => ({
      concurrency,
      rate,
      ceiling: null,
      lastThrottleAt: null,
      lastThrottle: null,
      history: [],
    });
    const adaptive = (over: Partial<GroupInfo>) =>
      ctx({ concurrency: 8, rate: { limit: 50, periodMs: 1000 }, adaptive: learned(2, 50), ...over });
    const running = (n: number) => ({ counts: { ...none, running: n } });
    expect(whyWaiting(task(), adaptive(running(2)))).toMatchObject({
      code: 'adaptive-lowered',
      message: "group vendor's adaptive limit is lowered after throttles: 2 of 8 running (2 running)",
      short: 'adaptive 2/8',
    });
    // lowered, but nothing of it is used: the task is free to start
    expect(whyWaiting(task(), adaptive(running(0)))?.code).toBe('ready');
    expect(whyWaiting(task(), { ...adaptive(running(0)), kinds: ['shell'] })?.code).toBe('no-worker');
    // a lowered rate whose next start is due later
    const slow = { adaptive: learned(8, 35), rateFreeAt: NOW + 30 };
    expect(whyWaiting(task(), adaptive(slow))).toMatchObject({
      code: 'adaptive-lowered',
      message: "group vendor's adaptive limit is lowered after throttles: 35/s of 50/s; next start in 30ms",
      until: NOW + 30,
    });
    expect(whyWaiting(task(), adaptive({ ...slow, rateFreeAt: null }))?.code).toBe('ready');
    // at its caps, waiting for its spacing: the rate, not the learning
    expect(whyWaiting(task(), adaptive({ adaptive: learned(8, 50), rateFreeAt: NOW + 20 }))?.code).toBe(
      'rate-window',
    );
  });
});
