/**
 * Machine gates: the readers against the real /proc and against fake folders, the policy's
 * hysteresis, and a dispatcher that holds its starts while a (fake) reading closes a gate.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../../electron/core/handlers/registry.ts';
import {
  readAvailableMemory,
  readLoadPerCore,
  readOnAc,
  type MachineReading,
} from '../../electron/core/machine/readings.ts';
import { closedGates, gateStateText, gateViews } from '../../electron/core/machine/gate-view.ts';
import { judgeGate } from '../../electron/core/policy/gate-policy.ts';
import type { GateConfig } from '../../shared/domain.ts';
import { parseBytes } from '../../shared/sizes.ts';
import { tempDir, testEngine, waitFor } from '../helpers.ts';

const GiB = 1024 ** 3;
const gate = (over: Partial<GateConfig>): GateConfig => ({
  group: null,
  maxLoad: null,
  minFreeMemory: null,
  onAc: false,
  whenIdleMs: null,
  pauseRunning: false,
  ...over,
});
const reading = (over: Partial<MachineReading>): MachineReading => ({
  loadPerCore: 0,
  availableMemory: 8 * GiB,
  onAc: true,
  idleMs: null,
  ...over,
});

function fakeMachine(files: Record<string, string>) {
  const root = tempDir();
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return { proc: path.join(root, 'proc'), sys: path.join(root, 'sys'), cores: 4 };
}

describe('machine readings', () => {
  it('reads the real /proc as the kernel reports it', () => {
    const cores = os.availableParallelism();
    const load = readLoadPerCore();
    expect(load).not.toBeNull();
    // The same file os.loadavg reads; it changes every 5 s at most.
    expect(load!).toBeCloseTo(os.loadavg()[0]! / cores, 0);
    const available = readAvailableMemory();
    expect(available).toBeGreaterThan(0);
    expect(available!).toBeLessThanOrEqual(os.totalmem());
    // Whatever this machine is, the answer is a boolean or "unknown", never a throw.
    expect([true, false, null]).toContain(readOnAc());
  });

  it('reads fake folders: load per core, MemAvailable, and mains power', () => {
    const f = fakeMachine({
      'proc/loadavg': '3.20 2.00 1.00 2/300 4242\n',
      'proc/meminfo': 'MemTotal:       16000000 kB\nMemFree:  100 kB\nMemAvailable:    1048576 kB\n',
      'sys/class/power_supply/AC/type': 'Mains\n',
      'sys/class/power_supply/AC/online': '0\n',
      'sys/class/power_supply/BAT0/type': 'Battery\n',
    });
    expect(readLoadPerCore(f)).toBeCloseTo(0.8);
    expect(readAvailableMemory(f)).toBe(GiB);
    expect(readOnAc(f)).toBe(false);
    fs.writeFileSync(path.join(f.sys, 'class/power_supply/AC/online'), '1\n');
    expect(readOnAc(f)).toBe(true);
    // No mains supply (a desktop, a VM): unknown, and nothing at all: unknown too.
    expect(readOnAc(fakeMachine({ 'sys/class/power_supply/BAT0/type': 'Battery\n' }))).toBeNull();
    const empty = fakeMachine({});
    expect([readLoadPerCore(empty), readAvailableMemory(empty), readOnAc(empty)]).toEqual([null, null, null]);
  });
});

describe('the gate policy', () => {
  it('closes above the load limit and opens only at 90 % of it', () => {
    const g = gate({ maxLoad: 0.8 });
    expect(judgeGate(g, reading({ loadPerCore: 1.9 }), false)).toMatchObject({
      closed: true,
      reason: 'load 1.9 per core > 0.8',
    });
    expect(judgeGate(g, reading({ loadPerCore: 0.75 }), false).closed).toBe(false);
    expect(judgeGate(g, reading({ loadPerCore: 0.75 }), true).closed).toBe(true);
    expect(judgeGate(g, reading({ loadPerCore: 0.72 }), true).closed).toBe(false);
  });

  it('shows a reading in the reopening band as held for a worker that closed the gate', () => {
    const g = gate({ maxLoad: 0.8, group: 'backups' });
    const [band] = gateViews([g], reading({ loadPerCore: 0.75 }));
    expect(band!.closed).toBe(false);
    expect(gateStateText(band!)).toBe(
      'open (a worker that closed it keeps it closed: load 0.75 per core > 0.72 (to reopen))',
    );
    expect(closedGates([g], reading({ loadPerCore: 0.75 }))).toEqual([
      { group: 'backups', reason: 'load 0.75 per core > 0.72 (to reopen), if a worker closed it' },
    ]);
    expect(gateStateText(gateViews([g], reading({ loadPerCore: 0.5 }))[0]!)).toBe('open');
    expect(closedGates([g], reading({ loadPerCore: 0.5 }))).toEqual([]);
    expect(gateStateText(gateViews([g], reading({ loadPerCore: 0.9 }))[0]!)).toBe(
      'closed: load 0.9 per core > 0.8',
    );
  });

  it('closes below the memory floor, opens at 110 % of it; on battery; unknown readings stay open', () => {
    const g = gate({ minFreeMemory: GiB, onAc: true });
    expect(judgeGate(g, reading({ availableMemory: 0.5 * GiB }), false).reason).toBe(
      'available memory 512 MiB < 1 GiB',
    );
    expect(judgeGate(g, reading({ availableMemory: 1.05 * GiB }), true).closed).toBe(true);
    expect(judgeGate(g, reading({ availableMemory: 1.2 * GiB }), true).closed).toBe(false);
    expect(judgeGate(g, reading({ onAc: false }), false).reason).toBe('on battery');
    expect(judgeGate(g, reading({ onAc: null, availableMemory: null }), false)).toEqual({
      closed: false,
      reason: null,
      unavailable: ['the available memory', 'the power source (no mains supply found)'],
    });
    expect(parseBytes('1g')).toBe(GiB);
    expect(parseBytes('512MiB')).toBe(GiB / 2);
    expect(parseBytes('lots')).toBeNull();
  });
});

describe('a dispatcher behind a machine gate', () => {
  it('starts nothing while a fake memory reading closes the gate, and starts once it opens', async () => {
    let available = 0.5 * GiB;
    let samples = 0;
    const said: string[] = [];
    let ran = 0;
    const engine = await testEngine({
      readMachine: () => {
        samples++;
        return reading({ availableMemory: available });
      },
      logger: { info: () => {}, warn: (m) => said.push(m), error: () => {} },
      handlers: [
        defineHandler({
          kind: 'count',
          description: 'test kind',
          payload: z.object({}),
          run: async () => {
            ran++;
          },
        }),
      ],
    });
    await engine.setGate(null, { minFreeMemory: GiB });
    await engine.enqueueMany([
      { kind: 'count', payload: {} },
      { kind: 'count', group: 'other', payload: {} },
    ]);
    engine.start();
    await waitFor(
      () => said.some((m) => m.includes('closed: available memory 512 MiB < 1 GiB')),
      'the gate closed',
    );
    // Read again (about every 2 s while closed), between the floor and 110 %: still closed.
    available = 1.05 * GiB;
    const seen = samples;
    await waitFor(() => samples >= seen + 2, 'two more samples', 30_000);
    expect(ran).toBe(0);
    expect((await engine.stats()).counts.pending).toBe(2);
    available = 2 * GiB;
    await waitFor(
      async () => (await engine.stats()).counts.done === 2,
      'both done once the gate opened',
      30_000,
    );
    expect(said.some((m) => m.includes('the queue gate opened'))).toBe(true);
    await engine.stop();
  });
});
