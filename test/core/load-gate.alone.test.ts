/**
 * A load gate against real load: CPU hogs (child processes spinning) push this machine's 1-minute
 * load average over the gate's limit, the dispatcher stops starting tasks, and starts resume once
 * the hogs are gone and the load falls back. The machine is shared and its load moves on its own,
 * so the limit is set relative to the load measured at the start, and every wait is generous:
 * the 1-minute average follows a change with a time constant of a minute.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import { exited, testEngine, waitFor } from '../helpers.ts';

const HOGS = 4;
/** Above the load at the start, per core: 4 hogs on 2 cores add up to 2, reached in ~30 s. */
const HEADROOM = 0.75;

const loadPerCore = () =>
  Number(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]) / os.availableParallelism();

const hogs: ChildProcess[] = [];
async function killHogs(): Promise<void> {
  for (const h of hogs.splice(0)) {
    h.kill('SIGKILL');
    await exited(h);
  }
}
afterEach(killHogs);

describe.skipIf(process.platform !== 'linux')('a load gate on real load', () => {
  it('holds every start while CPU hogs keep the load over the limit, and starts again once they stop', async () => {
    const limit = Math.round((loadPerCore() + HEADROOM) * 100) / 100;
    const starts: number[] = [];
    const events: { at: number; line: string }[] = [];
    const log = (line: string) => events.push({ at: Date.now(), line });
    const engine = await testEngine({
      logger: { info: () => {}, warn: log, error: log },
      handlers: [
        defineHandler({
          kind: 'stamp',
          description: 'records when it started',
          payload: z.object({}),
          run: async () => {
            starts.push(Date.now());
          },
        }),
      ],
    });
    // A steady stream: two starts a second while the gate is open.
    await engine.updateGroup('steady', { rate: { limit: 1, periodMs: 500 } });
    await engine.enqueueMany(
      Array.from({ length: 2000 }, () => ({ kind: 'stamp', group: 'steady', payload: {} })),
    );
    await engine.setGate(null, { maxLoad: limit });
    engine.start();
    await waitFor(() => starts.length >= 3, 'starts before the hogs', 60_000);

    const hogsAt = Date.now();
    for (let i = 0; i < HOGS; i++)
      hogs.push(spawn(process.execPath, ['-e', 'for(;;);'], { stdio: 'ignore' }));
    const closed = await waitFor(
      () => events.find((e) => e.line.startsWith('the queue gate closed: load')),
      `the gate closed over ${limit} per core`,
      300_000,
    );
    // Two more samples closed, then the hogs stop.
    await waitFor(() => Date.now() - closed.at > 5000, 'the gate closed a while', 30_000);
    await killHogs();
    const opened = await waitFor(
      () => events.find((e) => e.at > closed.at && e.line === 'the queue gate opened'),
      `the gate open again at or below ${Math.round(limit * 90) / 100} per core`,
      480_000,
    );
    await waitFor(() => starts.some((t) => t > opened.at), 'a start after it opened', 60_000);
    await engine.stop();

    // A start in the same tick as the close may still begin its handler a moment after the line.
    const duringClose = starts.filter((t) => t > closed.at + 100 && t < opened.at);
    expect(duringClose).toEqual([]);
    expect(starts.filter((t) => t < closed.at).length).toBeGreaterThanOrEqual(3);
    console.log(
      `load gate: limit ${limit}/core (start ${Math.round((limit - HEADROOM) * 100) / 100}), closed ${Math.round((closed.at - hogsAt) / 1000)} s after the hogs began, for ${Math.round((opened.at - closed.at) / 1000)} s, ${starts.length} starts`,
    );
  }, 900_000);
});
