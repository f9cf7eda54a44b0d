/**
 * The wall clock stepping an hour back or forward (NTP, a user fixing the time, a laptop waking
 * up) must not release a live owner's lease, must not keep a dead owner's lease, and must not cut
 * a backoff short. Two engines share one file in this process (same pid, so only leases decide),
 * each with its own injected wall clock and monotonic clock.
 *
 * "Early" for a delay means: a dispatcher that set a delay of D (backoff, Retry-After) at
 * monotonic instant m starts that task before m + D on its own monotonic clock, or any dispatcher
 * starts a task before its run_at by its own wall clock.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Clock, MonotonicClock } from '../../electron/core/clock.ts';
import type { Engine } from '../../electron/core/engine.ts';
import { defineHandler, type Handler } from '../../electron/core/handlers/registry.ts';
import { wrapSqliteStore } from '../../electron/core/store/sqlite/async-store.ts';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { RenewResult, TaskStore } from '../../electron/core/store/task-store.ts';
import { tempDir, testEngine, waitFor } from '../helpers.ts';

const HOUR = 3600_000;
const LEASE = 300;

/** A wall clock and a monotonic clock the test can step: `jump` moves only the wall. */
function testClocks(mono: 'real' | 'manual' = 'real') {
  let wallOffset = 0;
  let monoOffset = 0;
  const wall: Clock = { now: () => Date.now() + wallOffset };
  const monotonic: MonotonicClock = {
    now: () => (mono === 'real' ? performance.now() : 0) + monoOffset,
  };
  return {
    wall,
    monotonic,
    jump: (ms: number) => (wallOffset += ms),
    /** time passes: both clocks move */
    pass: (ms: number) => {
      wallOffset += ms;
      monoOffset += ms;
    },
  };
}

/** A store that counts calls and can stop renewing (an owner whose event loop stalls). */
function instrumented(file: string) {
  const real = new SqliteTaskStore(file);
  const calls = { renewLeases: 0, reclaimLost: 0 };
  const ctl = { hung: false };
  const store = new Proxy(real, {
    get(target, key) {
      if (key === 'renewLeases') {
        return (...args: Parameters<TaskStore['renewLeases']>): RenewResult => {
          calls.renewLeases++;
          return ctl.hung ? { lost: [], cancelRequested: [], strays: [] } : target.renewLeases(...args);
        };
      }
      const v: unknown = Reflect.get(target, key, target);
      if (typeof v !== 'function') return v;
      const fn = v as (...a: unknown[]) => unknown;
      return (...a: unknown[]) => {
        if (key === 'reclaimLost') calls.reclaimLost++;
        return fn.apply(target, a);
      };
    },
  });
  return { store: wrapSqliteStore(store, file, 10), calls, ctl };
}

/** A `hold` kind; the owner's copy waits for `release()`, the reaper's returns at once. */
function holdKind(label: 'owner' | 'reaper') {
  let release = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const state = { runs: 0, release: () => release() };
  const handler = defineHandler({
    kind: 'hold',
    description: 'waits for the test',
    payload: z.object({}),
    run: async () => {
      state.runs++;
      if (label === 'owner') await gate;
      return { by: label };
    },
  });
  return { handler: handler as Handler<unknown>, state };
}

async function engineOn(
  file: string,
  opts: { label: string; handlers: Handler<unknown>[]; clocks?: ReturnType<typeof testClocks> },
) {
  const inst = instrumented(file);
  const engine = await testEngine({
    store: inst.store,
    handlers: opts.handlers,
    workerLabel: opts.label,
    leaseMs: LEASE,
    reapIntervalMs: 20,
    schedules: false,
    ...(opts.clocks ? { clock: opts.clocks.wall, monotonic: opts.clocks.monotonic } : {}),
  });
  return { engine, ...inst };
}

/** Waits until `n` more calls of `key` were made than when this was called. */
async function more(calls: Record<string, number>, key: string, n: number) {
  const from = calls[key]!;
  await waitFor(() => calls[key]! - from >= n, `${n} more ${key} calls`);
}

async function attempts(engine: Engine, id: number) {
  return (await engine.getTask(id)).history.filter((h) => h.type === 'attempt').map((h) => h.outcome);
}

describe('clock jumps and leases', () => {
  async function liveOwnerKeepsItsLease(jumper: 'owner' | 'reaper', ms: number) {
    const file = path.join(tempDir(), 'q.db');
    const ownerClocks = testClocks();
    const reaperClocks = testClocks();
    const ownerHold = holdKind('owner');
    const reaperHold = holdKind('reaper');
    const owner = await engineOn(file, {
      label: 'owner',
      handlers: [ownerHold.handler],
      clocks: ownerClocks,
    });
    const reaper = await engineOn(file, {
      label: 'reaper',
      handlers: [reaperHold.handler],
      clocks: reaperClocks,
    });
    const { task } = await owner.engine.enqueue({ kind: 'hold', payload: {} });
    owner.engine.start();
    await waitFor(() => ownerHold.state.runs === 1, 'the owner started the task');
    reaper.engine.start();
    await more(reaper.calls, 'reclaimLost', 3);
    (jumper === 'owner' ? ownerClocks : reaperClocks).jump(ms);
    // Three lease lengths of renewals, watched by the reaper all along.
    await more(owner.calls, 'renewLeases', 9);
    await more(reaper.calls, 'reclaimLost', 10);
    const t = await owner.engine.getTask(task.id);
    expect(t.status).toBe('running');
    expect(t.leaseOwner).toMatch(/^owner@/);
    expect(reaperHold.state.runs).toBe(0);
    ownerHold.state.release();
    await waitFor(async () => (await owner.engine.getTask(task.id)).status === 'done', 'done');
    const done = await owner.engine.getTask(task.id);
    expect(done.attempts).toBe(1);
    expect(done.result).toEqual({ by: 'owner' });
    expect(await attempts(owner.engine, task.id)).toEqual(['done']);
    await Promise.all([owner.engine.stop(), reaper.engine.stop()]);
  }

  it("a reaper whose wall clock jumps an hour forward does not take a live owner's task", () =>
    liveOwnerKeepsItsLease('reaper', HOUR));
  it('an owner whose wall clock jumps an hour back keeps its lease', () =>
    liveOwnerKeepsItsLease('owner', -HOUR));

  async function hungOwnerLosesItsLease(reaperJump: 'none' | 'forward-before' | 'back-after') {
    const file = path.join(tempDir(), 'q.db');
    const reaperClocks = testClocks('manual');
    const ownerHold = holdKind('owner');
    const reaperHold = holdKind('reaper');
    const owner = await engineOn(file, { label: 'owner', handlers: [ownerHold.handler] });
    const reaper = await engineOn(file, {
      label: 'reaper',
      handlers: [reaperHold.handler],
      clocks: reaperClocks,
    });
    const { task } = await owner.engine.enqueue({ kind: 'hold', payload: {} });
    owner.engine.start();
    await waitFor(() => ownerHold.state.runs === 1, 'the owner started the task');
    if (reaperJump === 'forward-before') reaperClocks.jump(HOUR);
    reaper.engine.start();
    owner.ctl.hung = true; // alive (same pid) but no longer renewing
    await more(reaper.calls, 'reclaimLost', 3); // the reaper has seen the last lease
    if (reaperJump === 'back-after') reaperClocks.jump(-HOUR);
    reaperClocks.pass(LEASE - 1);
    await more(reaper.calls, 'reclaimLost', 5);
    expect((await owner.engine.getTask(task.id)).status).toBe('running');
    reaperClocks.pass(1);
    await waitFor(async () => (await owner.engine.getTask(task.id)).status === 'done', 'the reaper ran it');
    const t = await owner.engine.getTask(task.id);
    expect(t.result).toEqual({ by: 'reaper' });
    expect(t.attempts).toBe(2);
    expect(await attempts(owner.engine, task.id)).toEqual(['lost', 'done']);
    // The stalled owner's late result is not written over the reaper's.
    ownerHold.state.release();
    await owner.engine.whenIdle();
    expect((await owner.engine.getTask(task.id)).result).toEqual({ by: 'reaper' });
    await Promise.all([owner.engine.stop(), reaper.engine.stop()]);
  }

  it('an owner that stops renewing loses its lease after one lease length of the reaper time', () =>
    hungOwnerLosesItsLease('none'));
  it('... also when the reaper wall clock is an hour ahead', () => hungOwnerLosesItsLease('forward-before'));
  it('... also when the reaper wall clock steps back an hour while it waits', () =>
    hungOwnerLosesItsLease('back-after'));
});

describe('clock jumps and delayed tasks', () => {
  function flakyKind() {
    return defineHandler({
      kind: 'flaky',
      description: 'fails its first attempt',
      payload: z.object({}),
      run: async (_p, { attempt }) => {
        if (attempt === 1) throw new Error('first attempt fails');
        return 'second worked';
      },
    }) as Handler<unknown>;
  }
  const quick = defineHandler({
    kind: 'quick',
    description: '',
    payload: z.object({}),
    run: async () => 'ok',
  }) as Handler<unknown>;

  it('a 30 s backoff is not cut short by an hour forward jump in the process that set it', async () => {
    const file = path.join(tempDir(), 'q.db');
    const clocks = testClocks('manual');
    const backoff = { baseMs: 30_000, capMs: 30_000, floorMs: 30_000, maxRetryAfter: 5 };
    const warnings: string[] = [];
    const worker = await testEngine({
      file,
      logger: { info: () => {}, warn: (m) => warnings.push(m), error: () => {} },
      handlers: [flakyKind(), quick],
      clock: clocks.wall,
      monotonic: clocks.monotonic,
      backoff,
      schedules: false,
    });
    // Another process's CLI: it enqueues; its writes wake the worker through data_version.
    const cli = await testEngine({ file, handlers: [flakyKind(), quick], clock: clocks.wall });
    const { task } = await worker.enqueue({ kind: 'flaky', payload: {} });
    worker.start();
    await waitFor(
      async () => (await worker.getTask(task.id)).status === 'retrying',
      'the first attempt failed',
    );
    const retryAt = (await worker.getTask(task.id)).runAt;
    clocks.jump(HOUR);
    // A task due before the retry still runs (the worker keeps working), the retry does not.
    const before = (await cli.enqueue({ kind: 'quick', payload: {}, runAt: retryAt - 10_000 })).task;
    await waitFor(async () => (await worker.getTask(before.id)).status === 'done', 'an earlier task ran');
    expect((await worker.getTask(task.id)).status).toBe('retrying');
    expect(warnings.join('\n')).toMatch(/clock step/);
    clocks.pass(30_000 - 1);
    const poke = (await cli.enqueue({ kind: 'quick', payload: {}, runAt: retryAt - 5000 })).task;
    await waitFor(async () => (await worker.getTask(poke.id)).status === 'done', 'another earlier task ran');
    expect((await worker.getTask(task.id)).status).toBe('retrying');
    clocks.pass(1);
    await cli.enqueue({ kind: 'quick', payload: {} }); // wakes the worker
    await waitFor(async () => (await worker.getTask(task.id)).status === 'done', 'the retry ran');
    expect((await worker.getTask(task.id)).attempts).toBe(2);
    expect(await attempts(worker, task.id)).toEqual(['retry', 'done']);
    // Once the backoff has passed, work stamped with the new wall time flows again.
    const after = (await cli.enqueue({ kind: 'quick', payload: {} })).task;
    await waitFor(async () => (await worker.getTask(after.id)).status === 'done', 'a new task ran');
    await worker.stop();
  });

  it('a task delayed 30 s after an hour backward jump is not started early by a long-running worker', async () => {
    const file = path.join(tempDir(), 'q.db');
    const clocks = testClocks('manual');
    const worker = await testEngine({
      file,
      handlers: [quick],
      clock: clocks.wall,
      monotonic: clocks.monotonic,
      schedules: false,
    });
    const cli = await testEngine({ file, handlers: [quick], clock: clocks.wall });
    worker.start();
    const first = (await cli.enqueue({ kind: 'quick', payload: {} })).task;
    await waitFor(async () => (await worker.getTask(first.id)).status === 'done', 'the worker runs');
    clocks.jump(-HOUR);
    const delayed = (await cli.enqueue({ kind: 'quick', payload: {}, delay: 30_000 })).task;
    const now = (await cli.enqueue({ kind: 'quick', payload: {} })).task;
    await waitFor(async () => (await worker.getTask(now.id)).status === 'done', 'an undelayed task ran');
    expect((await worker.getTask(delayed.id)).status).toBe('pending');
    clocks.pass(30_000);
    await cli.enqueue({ kind: 'quick', payload: {} });
    await waitFor(
      async () => (await worker.getTask(delayed.id)).status === 'done',
      'the delayed task ran when due',
    );
    await worker.stop();
  });
});
