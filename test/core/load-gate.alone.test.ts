/**
 * A load gate against real load: CPU hogs (child processes spinning) push this machine's 1-minute
 * load average up, a gate with its limit below that closes, the dispatcher stops starting tasks,
 * and starts resume once the hogs are gone and the load falls back.
 *
 * The load average moves with everything on the machine, so this file runs alone, after the
 * rest of the suite (`vitest.alone.config.ts`, in `npm test`): beside it, the suite's own load
 * rose and fell by more than the hogs add. Even alone the machine may still be settling, so the
 * rise is measured from the lowest reading since the hogs began, and the limit set only once
 * the load stands above it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import { exited, testEngine, waitFor } from '../helpers.ts';

const HOGS = 4;
/** At most this many, added HOGS at a time while the load does not rise (see below). */
const MAX_HOGS = 16;
/** How far the hogs must lift the load (per core) over its lowest reading: 4 on 2 cores add 2. */
const RISE = 1;
/** The limit's place under the lifted load: the gate closes at once, and reopens at 90 % of it. */
const BELOW = 0.2;

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
    engine.start();
    await waitFor(() => starts.length >= 3, 'starts before the hogs', 60_000);

    const hogsAt = Date.now();
    const addHogs = (n: number) => {
      for (let i = 0; i < n; i++) hogs.push(spawn(process.execPath, ['-e', 'for(;;);'], { stdio: 'ignore' }));
    };
    addHogs(HOGS);
    let low = loadPerCore();
    let addedAt = Date.now();
    const lifted = await waitFor(
      () => {
        const now = loadPerCore();
        low = Math.min(low, now);
        if (now >= low + RISE) return now;
        // A machine left busier than the hogs alone keep it (the suite's load still falling)
        // never shows the rise over its lowest reading: more hogs, a minute apart.
        if (Date.now() - addedAt > 60_000 && hogs.length < MAX_HOGS) {
          addHogs(HOGS);
          addedAt = Date.now();
        }
        return false;
      },
      `the hogs to lift the load ${RISE} per core`,
      300_000,
    );
    const limit = Math.round((low + RISE - BELOW) * 100) / 100;
    await engine.setGate(null, { maxLoad: limit });
    const closed = await waitFor(
      () => events.find((e) => e.line.startsWith('the queue gate closed: load')),
      `the gate closed over ${limit} per core (load ${lifted})`,
      60_000,
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
      `load gate: lowest ${low}/core, lifted to ${lifted}, limit ${limit}; closed ${Math.round((closed.at - hogsAt) / 1000)} s after the hogs began, for ${Math.round((opened.at - closed.at) / 1000)} s, ${starts.length} starts`,
    );
  }, 900_000);
});
