/**
 * The dispatcher's view of its machine gates: each closing and opening is said once, and so is
 * the removal of a gate that was holding starts back (else the log ends on "closed").
 */
import { describe, expect, it } from 'vitest';
import type { GateConfig } from '../../shared/domain.ts';
import { GateWatch } from '../../electron/core/dispatch/gate-watch.ts';
import type { MachineReading } from '../../electron/core/machine/readings.ts';

const busy: MachineReading = { loadPerCore: 3, availableMemory: 8e9, onAc: true, idleMs: null };
const quiet: MachineReading = { ...busy, loadPerCore: 0.1 };

function gate(group: string | null): GateConfig {
  return { group, maxLoad: 1, minFreeMemory: null, onAc: false, whenIdleMs: null, pauseRunning: false };
}

describe('GateWatch', () => {
  it('says when a gate closes, opens, and when a closed one is removed', () => {
    let reading = busy;
    const lines: string[] = [];
    const watch = new GateWatch(
      () => reading,
      (l) => lines.push(l),
    );
    expect(watch.judge([gate(null), gate('backups')]).queueClosed).toBe(true);
    expect(lines).toEqual([
      'the queue gate closed: load 3 per core > 1; no new start',
      'the gate of group backups closed: load 3 per core > 1; no new start',
    ]);
    lines.length = 0;
    // The group's gate is removed while closed; the queue's stays closed and is not said again.
    const v = watch.judge([gate(null)]);
    expect([v.queueClosed, [...v.closedGroups]]).toEqual([true, ['']]);
    expect(lines).toEqual(['the gate of group backups removed while closed: starts allowed again']);
    lines.length = 0;
    // The last gate removed while closed.
    expect(watch.judge([]).queueClosed).toBe(false);
    expect(lines).toEqual(['the queue gate removed while closed: starts allowed again']);
    expect(watch.anyClosed).toBe(false);
    lines.length = 0;
    watch.judge([]);
    reading = quiet;
    watch.judge([gate(null)]);
    expect(lines).toEqual([]);
  });
});
