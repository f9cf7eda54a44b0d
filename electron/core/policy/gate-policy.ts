/**
 * Machine gates: whether a gate is closed on a reading of this machine, with hysteresis so a
 * reading hovering at the limit does not open and close it on every sample. Pure.
 *
 * - load per core: closes above `maxLoad`; once closed, opens again at or below 90 % of it;
 * - available memory: closes below `minFreeMemory`; once closed, opens at or above 110 % of it;
 * - on AC: closed while on battery;
 * - when idle: closed until the user has been idle that long (the idle time jumps to 0 at a
 *   touch and grows steadily, so it needs no band: it cannot hover at the limit).
 * A reading that is not available keeps its part of the gate open (the caller says so once).
 */
import type { GateConfig } from '../../../shared/domain.ts';
import { formatDuration, formatElapsed } from '../../../shared/durations.ts';
import { formatBytes } from '../../../shared/sizes.ts';
import type { MachineReading } from '../machine/readings.ts';

/** How far past its limit a closed gate's reading must come back before it opens. */
export const REOPEN_MARGIN = 0.1;

export interface GateJudgement {
  closed: boolean;
  /** why it is closed, with the reading: "load 1.9 per core > 0.8" */
  reason: string | null;
  /** the readings it needs that this machine does not give */
  unavailable: string[];
}

const round = (n: number) => (Math.round(n * 100) / 100).toString();

export function judgeGate(g: GateConfig, r: MachineReading, wasClosed: boolean): GateJudgement {
  const reasons: string[] = [];
  const unavailable: string[] = [];
  if (g.maxLoad !== null) {
    if (r.loadPerCore === null) unavailable.push('the load average');
    else {
      const limit = wasClosed ? g.maxLoad * (1 - REOPEN_MARGIN) : g.maxLoad;
      if (r.loadPerCore > limit)
        reasons.push(
          `load ${round(r.loadPerCore)} per core > ${round(limit)}${wasClosed ? ' (to reopen)' : ''}`,
        );
    }
  }
  if (g.minFreeMemory !== null) {
    if (r.availableMemory === null) unavailable.push('the available memory');
    else {
      const limit = wasClosed ? g.minFreeMemory * (1 + REOPEN_MARGIN) : g.minFreeMemory;
      if (r.availableMemory < limit)
        reasons.push(
          `available memory ${formatBytes(r.availableMemory)} < ${formatBytes(limit)}${wasClosed ? ' (to reopen)' : ''}`,
        );
    }
  }
  if (g.onAc) {
    if (r.onAc === null) unavailable.push('the power source (no mains supply found)');
    else if (!r.onAc) reasons.push('on battery');
  }
  if (g.whenIdleMs !== null) {
    if (r.idleMs === null)
      unavailable.push('the idle time (only the tray app reads it, where the desktop tells it)');
    else if (r.idleMs < g.whenIdleMs)
      reasons.push(`user idle ${formatElapsed(r.idleMs)} < ${formatDuration(g.whenIdleMs)}`);
  }
  return { closed: reasons.length > 0, reason: reasons.length > 0 ? reasons.join(', ') : null, unavailable };
}
