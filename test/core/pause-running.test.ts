/**
 * A machine gate with --pause-running: a running shell task is stopped (SIGSTOP) while its gate
 * is closed and continued (SIGCONT) when it opens; the pause is recorded on its attempt and not
 * counted against its timeout, and its lease is renewed meanwhile. The gate closes on a fake
 * reading; the task is a real process writing timestamps, so the gap is seen from its own clock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MachineReading } from '../../electron/core/machine/readings.ts';
import { cli } from '../cli/cli-helpers.ts';
import { spawnNode, tempDir, testEngine, waitFor } from '../helpers.ts';
import {
  ATTEMPT_TAG_VAR,
  attemptTag,
  canFindTagged,
  stopTagged,
} from '../../electron/core/handlers/attempt-tag.ts';

const TIMEOUT_MS = 12_000;
/** Longer than the timeout: a pause counted against it would end the task. */
const PAUSE_AT_LEAST_MS = TIMEOUT_MS + 4000;

const stampsOf = (file: string): number[] =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];

describe('--pause-running', () => {
  it('stops a shell task while its gate is closed, continues it, and does not count the pause to its timeout', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'queue.db');
    const stamps = path.join(dir, 'stamps');
    const stop = path.join(dir, 'stop');
    let load = 0;
    const said: string[] = [];
    const log = (m: string) => said.push(m);
    const engine = await testEngine({
      file,
      // Short leases: one not renewed during the pause would be lost and the task run again.
      leaseMs: 3000,
      readMachine: (): MachineReading => ({
        loadPerCore: load,
        availableMemory: 1e12,
        onAc: true,
        idleMs: null,
      }),
      logger: { info: log, warn: log, error: log },
    });
    await engine.setGate('batch', { maxLoad: 1, pauseRunning: true });
    // A task of another group, under no gate, is not paused.
    const loop = 'while [ ! -e "$1" ]; do date +%s%3N >> "$2"; sleep 0.1; done';
    const other = path.join(dir, 'other-stamps');
    const { task } = await engine.enqueue({
      kind: 'shell',
      group: 'batch',
      timeout: TIMEOUT_MS,
      payload: { command: '/bin/sh', args: ['-c', loop, 'sh', stop, stamps] },
    });
    const free = await engine.enqueue({
      kind: 'shell',
      group: 'free',
      payload: { command: '/bin/sh', args: ['-c', loop, 'sh', stop, other] },
    });
    engine.start();
    await waitFor(() => stampsOf(stamps).length >= 3, 'the task writing its stamps', 60_000);

    load = 5;
    await waitFor(() => said.some((m) => m.includes(`task ${task.id} paused`)), 'the task paused', 30_000);
    const pausedAt = Date.now();
    // The stamps stop: a few more samples of the file show no new line.
    const frozen = stampsOf(stamps).length;
    const otherBefore = stampsOf(other).length;
    await waitFor(
      () => Date.now() - pausedAt >= PAUSE_AT_LEAST_MS,
      'the pause outlasting the timeout',
      60_000,
    );
    expect(stampsOf(stamps).length).toBe(frozen);
    expect(stampsOf(other).length).toBeGreaterThan(otherBefore);
    expect((await engine.getTask(task.id)).status).toBe('running');

    load = 0;
    await waitFor(() => said.some((m) => m.includes(`task ${task.id} continued after`)), 'continued', 30_000);
    await waitFor(() => stampsOf(stamps).length >= frozen + 3, 'new stamps after the pause', 60_000);
    fs.writeFileSync(stop, '');
    await waitFor(
      async () =>
        (await engine.getTask(task.id)).status === 'done' &&
        (await engine.getTask(free.task.id)).status === 'done',
      'both tasks done',
      60_000,
    );

    const s = stampsOf(stamps);
    const gaps = s.slice(1).map((t, i) => t - s[i]!);
    const gap = Math.max(...gaps);
    // Ran from first to last stamp longer than its timeout: the pause was not counted.
    expect(s.at(-1)! - s[0]!).toBeGreaterThan(TIMEOUT_MS);
    expect(gap).toBeGreaterThanOrEqual(PAUSE_AT_LEAST_MS);
    const done = await engine.getTask(task.id);
    expect(done.attempts).toBe(1);
    const attempts = done.history.filter((h) => h.type === 'attempt');
    expect(attempts).toHaveLength(1);
    const pausedMs = attempts[0]!.pausedMs!;
    // The recorded pause is the gap the task itself saw, give or take a sample and a sleep.
    expect(pausedMs).toBeGreaterThanOrEqual(PAUSE_AT_LEAST_MS);
    expect(Math.abs(pausedMs - gap)).toBeLessThan(5000);
    expect((await engine.getTask(free.task.id)).history[0]!.pausedMs).toBeNull();
    await engine.stop();

    const show = await cli(['show', String(task.id)], { db: file });
    expect(show.stdout).toMatch(/attempt 1: done \(\S+, \d+s of it paused by a machine gate\)/);
  }, 240_000);

  it.skipIf(!canFindTagged)(
    'ends a paused process its dead worker left on its own SIGTERM, not a SIGKILL after the grace',
    async () => {
      const child = spawnNode(
        [
          '-e',
          "process.on('SIGTERM', () => process.exit(7)); console.log('ready'); setInterval(() => {}, 1000);",
        ],
        { [ATTEMPT_TAG_VAR]: attemptTag('w-gone', 1, 1) },
      );
      await new Promise((resolve) => child.stdout!.once('data', resolve));
      process.kill(child.pid!, 'SIGSTOP');
      const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.once('exit', (code, signal) => resolve([code, signal])),
      );
      // A grace longer than the test: a SIGTERM left pending on a stopped process would need it.
      expect(await stopTagged('w-gone', 300_000)).toBe(true);
      expect(await ended).toEqual([7, null]);
    },
    120_000,
  );

  it('continues a paused task before cancelling it, so it ends on its SIGTERM', async () => {
    const dir = tempDir();
    const load = 5;
    const said: string[] = [];
    const log = (m: string) => said.push(m);
    const engine = await testEngine({
      file: path.join(dir, 'queue.db'),
      readMachine: (): MachineReading => ({
        loadPerCore: load,
        availableMemory: 1e12,
        onAc: true,
        idleMs: null,
      }),
      logger: { info: log, warn: log, error: log },
    });
    const started = path.join(dir, 'started');
    const { task } = await engine.enqueue({
      kind: 'shell',
      payload: { command: '/bin/sh', args: ['-c', 'touch "$1"; while :; do sleep 0.1; done', 'sh', started] },
    });
    engine.start();
    await waitFor(() => fs.existsSync(started), 'the task started', 60_000);
    // Closed while it runs (the claim saw it open): a queue gate, set now.
    await engine.setGate(null, { maxLoad: 1, pauseRunning: true });
    await waitFor(() => said.some((m) => m.includes(`task ${task.id} paused`)), 'the task paused', 30_000);
    await engine.cancel([task.id]);
    await waitFor(async () => (await engine.getTask(task.id)).status === 'cancelled', 'cancelled', 30_000);
    const [attempt] = (await engine.getTask(task.id)).history.filter((h) => h.type === 'attempt');
    expect(attempt!.outcome).toBe('cancelled');
    expect(attempt!.pausedMs).toBeGreaterThan(0);
    await engine.stop();
  }, 120_000);
});
