import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler, type Handler } from '../../electron/core/handlers/registry.ts';
import { PermanentError, RetryAfterError } from '../../electron/core/errors.ts';
import { testEngine, waitFor } from '../helpers.ts';

/** A kind whose behaviour each test scripts, recording what ran when. */
function scripted(run: Handler<{ ms?: number; tag?: string }>['run']): Handler<unknown> {
  return defineHandler({
    kind: 'scripted',
    description: 'test kind',
    payload: z.object({ ms: z.number().optional(), tag: z.string().optional() }),
    run,
  });
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason as Error);
    });
  });

describe('dispatcher', () => {
  it('runs 30 tasks of 50 ms three at a time under the default global limit of 3, never more', async () => {
    let now = 0;
    let peak = 0;
    const engine = testEngine({
      handlers: [
        scripted(async ({ ms }) => {
          now++;
          peak = Math.max(peak, now);
          await sleep(ms ?? 0);
          now--;
        }),
      ],
    });
    expect(engine.stats().settings.globalConcurrency).toBe(3);
    engine.enqueueMany(Array.from({ length: 30 }, () => ({ kind: 'scripted', payload: { ms: 50 } })));
    engine.start();
    await waitFor(() => engine.stats().counts.done === 30, '30 done');
    // Exactly 3 proves both sides: the limit holds, and tasks really run concurrently.
    expect(peak).toBe(3);
  });

  it('keeps going at its maxInFlight when every running task ends in the same turn', async () => {
    // Regression: the finishes of all its slots written in one tick freed no slot for that
    // tick's claims, and nothing woke the worker again: it sat idle with tasks pending.
    let release = () => {};
    let gate = new Promise<void>((r) => (release = r));
    const engine = testEngine({
      maxInFlight: 2,
      handlers: [scripted(() => gate)],
    });
    engine.enqueueMany(Array.from({ length: 6 }, () => ({ kind: 'scripted', payload: {} })));
    engine.start();
    for (let done = 2; done <= 6; done += 2) {
      await waitFor(() => engine.stats().counts.running === 2, `2 running before ${done} done`);
      const open = release;
      gate = new Promise<void>((r) => (release = r));
      open(); // both running tasks end in this one turn
      await waitFor(() => engine.stats().counts.done === done, `${done} done`);
    }
  });

  it('a worker capped by maxInFlight takes the next task as soon as one finishes, with no other process writing', async () => {
    // (`semaforo work --concurrency 1` used to run one task and then wait for some other write)
    let now = 0;
    let peak = 0;
    const engine = testEngine({
      maxInFlight: 2,
      handlers: [
        scripted(async ({ ms }) => {
          peak = Math.max(peak, ++now);
          await sleep(ms ?? 0);
          now--;
        }),
      ],
    });
    engine.updateSettings({ globalConcurrency: 10 });
    engine.enqueueMany(Array.from({ length: 6 }, () => ({ kind: 'scripted', payload: { ms: 5 } })));
    engine.start();
    await waitFor(() => engine.stats().counts.done === 6, '6 done', 5000);
    expect(peak).toBe(2);
  });

  it('starts by priority (0 first), FIFO within a priority', async () => {
    const order: string[] = [];
    const engine = testEngine({ handlers: [scripted(async ({ tag }) => void order.push(tag!))] });
    engine.updateSettings({ globalConcurrency: 1, paused: true });
    engine.start();
    const specs = [
      ['a', 5],
      ['b', 1],
      ['c', 5],
      ['d', 0],
      ['e', 1],
    ] as const;
    for (const [tag, priority] of specs) engine.enqueue({ kind: 'scripted', priority, payload: { tag } });
    engine.resume();
    await waitFor(() => engine.stats().counts.done === 5, 'all done');
    expect(order).toEqual(['d', 'b', 'e', 'a', 'c']);
  });

  it('does not start a delayed task before its runAt, and starts it promptly after', async () => {
    const started: number[] = [];
    const engine = testEngine({ handlers: [scripted(async () => void started.push(Date.now()))] });
    engine.start();
    const { task } = engine.enqueue({ kind: 'scripted', delayMs: 300, payload: {} });
    await waitFor(() => engine.getTask(task.id).status === 'done', 'delayed task done');
    expect(started[0]!).toBeGreaterThanOrEqual(task.runAt);
  });

  it('retries with backoff until it succeeds, recording every attempt', async () => {
    let calls = 0;
    const engine = testEngine({
      handlers: [
        scripted(async () => {
          calls++;
          if (calls < 3) throw new Error(`boom ${calls}`);
          return { ok: true };
        }),
      ],
    });
    engine.start();
    const { task } = engine.enqueue({ kind: 'scripted', payload: {} });
    const done = await waitFor(() => {
      const t = engine.getTask(task.id);
      return t.status === 'done' && t;
    }, 'done');
    expect(done.attempts).toBe(3);
    expect(done.result).toEqual({ ok: true });
    expect(done.history.map((h) => h.outcome)).toEqual(['retry', 'retry', 'done']);
    expect(done.history[0]!.error).toBe('boom 1');
    // each retry waited: the next attempt started after the previous one ended
    expect(done.history[1]!.startedAt).toBeGreaterThan(done.history[0]!.endedAt!);
  });

  it('stops at maxAttempts and puts the task in the dead letter (failed)', async () => {
    const engine = testEngine({ handlers: [scripted(async () => Promise.reject(new Error('always')))] });
    engine.start();
    const { task } = engine.enqueue({ kind: 'scripted', maxAttempts: 2, payload: {} });
    const t = await waitFor(
      () => engine.getTask(task.id).status === 'failed' && engine.getTask(task.id),
      'failed',
    );
    expect(t.attempts).toBe(2);
    expect(t.error).toBe('always');
    expect(engine.stats().recentFailures.map((f) => f.id)).toEqual([task.id]);
  });

  it('sends a permanent error straight to failed', async () => {
    const engine = testEngine({
      handlers: [scripted(async () => Promise.reject(new PermanentError('404 not found')))],
    });
    engine.start();
    const { task } = engine.enqueue({ kind: 'scripted', maxAttempts: 5, payload: {} });
    const t = await waitFor(
      () => engine.getTask(task.id).status === 'failed' && engine.getTask(task.id),
      'failed',
    );
    expect(t.attempts).toBe(1);
    expect(t.history.map((h) => h.outcome)).toEqual(['failed']);
  });

  it('honours Retry-After without using up an attempt, and holds the whole group back', async () => {
    const starts: { tag: string; t: number }[] = [];
    let first = true;
    const engine = testEngine({
      handlers: [
        scripted(async ({ tag }) => {
          starts.push({ tag: tag!, t: Date.now() });
          if (tag === 'a' && first) {
            first = false;
            throw new RetryAfterError(300);
          }
        }),
      ],
    });
    engine.updateSettings({ globalConcurrency: 1 });
    const a = engine.enqueue({
      kind: 'scripted',
      maxAttempts: 1,
      group: 'vendor',
      payload: { tag: 'a' },
    }).task;
    engine.start();
    await waitFor(() => starts.length === 1, 'first start');
    engine.enqueue({ kind: 'scripted', group: 'vendor', payload: { tag: 'b' } });
    await waitFor(
      () => engine.stats().groups.find((g) => g.name === 'vendor')!.counts.done === 2,
      'both done',
    );
    const t = engine.getTask(a.id);
    expect(t.status).toBe('done'); // maxAttempts 1, yet it ran twice: the 429 did not count
    expect(t.attempts).toBe(1);
    expect(t.retryAfterCount).toBe(1);
    const blockedFrom = starts[0]!.t;
    for (const s of starts.slice(1)) expect(s.t - blockedFrom).toBeGreaterThanOrEqual(290);
  });

  it('aborts a task past its timeout through its signal and retries it', async () => {
    let aborted: unknown = null;
    const engine = testEngine({
      handlers: [
        scripted(async (_p, { signal }) => {
          await sleep(10_000, signal).catch((e: unknown) => {
            aborted = e;
            throw e;
          });
        }),
      ],
    });
    engine.start();
    const { task } = engine.enqueue({ kind: 'scripted', timeoutMs: 50, maxAttempts: 1, payload: {} });
    const t = await waitFor(
      () => engine.getTask(task.id).status === 'failed' && engine.getTask(task.id),
      'failed',
    );
    expect(String(aborted)).toMatch(/timed out after 50 ms/);
    expect(t.history[0]!.outcome).toBe('timeout');
  });

  it('a handler that asks for its signal only after the timeout finds it aborted, with the reason', async () => {
    let seen: { aborted: boolean; reason: string } | null = null;
    const engine = testEngine({
      abortGraceMs: 10_000,
      handlers: [
        scripted(async (_p, ctx) => {
          // Busy with something that does not listen: the signal is first asked for late.
          await sleep(300);
          seen = { aborted: ctx.signal.aborted, reason: String(ctx.signal.reason) };
          throw ctx.signal.reason as Error;
        }),
      ],
    });
    engine.start();
    const { task } = engine.enqueue({ kind: 'scripted', timeoutMs: 50, maxAttempts: 1, payload: {} });
    const t = await waitFor(
      () => engine.getTask(task.id).status === 'failed' && engine.getTask(task.id),
      'failed',
    );
    expect(seen).toEqual({ aborted: true, reason: expect.stringMatching(/timed out after 50 ms/) });
    expect(t.history[0]!.outcome).toBe('timeout');
  });

  it('cancels a pending task at once and a running one through its AbortSignal', async () => {
    const engine = testEngine({ handlers: [scripted(async (_p, { signal }) => sleep(10_000, signal))] });
    engine.updateSettings({ globalConcurrency: 1 });
    const running = engine.enqueue({ kind: 'scripted', payload: {} }).task;
    const waiting = engine.enqueue({ kind: 'scripted', payload: {} }).task;
    engine.start();
    await waitFor(() => engine.getTask(running.id).status === 'running', 'running');
    expect(engine.cancel([waiting.id])).toEqual({ cancelled: [waiting.id], requested: [] });
    expect(engine.getTask(waiting.id).status).toBe('cancelled');
    expect(engine.cancel([running.id])).toEqual({ cancelled: [], requested: [running.id] });
    const t = await waitFor(
      () => engine.getTask(running.id).status === 'cancelled' && engine.getTask(running.id),
      'cancelled',
    );
    expect(t.history.at(-1)!.outcome).toBe('cancelled');
    expect(engine.stats().counts.running).toBe(0);
  });

  it('pauses and resumes the queue and a single group', async () => {
    const engine = testEngine({ handlers: [scripted(async () => {})] });
    engine.start();
    engine.pause('slow');
    const a = engine.enqueue({ kind: 'scripted', group: 'slow', payload: {} }).task;
    const b = engine.enqueue({ kind: 'scripted', group: 'fast', payload: {} }).task;
    await waitFor(() => engine.getTask(b.id).status === 'done', 'fast group runs');
    expect(engine.getTask(a.id).status).toBe('pending');
    engine.pause();
    engine.resume('slow');
    const c = engine.enqueue({ kind: 'scripted', group: 'fast', payload: {} }).task;
    await new Promise((r) => setTimeout(r, 150));
    expect(engine.getTask(a.id).status).toBe('pending');
    expect(engine.getTask(c.id).status).toBe('pending');
    engine.resume();
    await waitFor(() => engine.stats().counts.done === 3, 'all done after resume');
  });

  it('retries failed tasks on request, by id and all failed in a group', async () => {
    let fail = true;
    const engine = testEngine({
      handlers: [scripted(async () => (fail ? Promise.reject(new PermanentError('no')) : undefined))],
    });
    engine.start();
    const ids = engine
      .enqueueMany([
        { kind: 'scripted', group: 'g', payload: {} },
        { kind: 'scripted', group: 'g', payload: {} },
        { kind: 'scripted', group: 'h', payload: {} },
      ])
      .map((r) => r.task.id);
    await waitFor(() => engine.stats().counts.failed === 3, '3 failed');
    fail = false;
    expect(engine.retryFailed({ group: 'g' })).toEqual(ids.slice(0, 2));
    await waitFor(() => engine.stats().counts.done === 2, 'g done');
    expect(engine.retry([ids[2]])).toEqual([ids[2]]);
    await waitFor(() => engine.stats().counts.done === 3, 'all done');
    expect(engine.getTask(ids[2]!).history.map((h) => h.outcome)).toEqual(['failed', 'retried', 'done']);
  });
});
