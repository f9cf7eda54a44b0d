/**
 * The machine gates as a face on this machine shows them: each gate with the reading it is
 * judged on here, and whether it is closed now. The face cannot know whether a worker closed a
 * gate (the hysteresis only the dispatcher remembers), so a reading inside the reopening band (load
 * between 90 % and 100 % of its limit) is shown as such: open for a worker that has it open,
 * still closed for one that closed it.
 */
import type { GateConfig } from '../../../shared/domain.ts';
import { judgeGate, type GateJudgement } from '../policy/gate-policy.ts';
import { readMachine, type MachineReading } from './readings.ts';

export interface GateView extends GateJudgement {
  gate: GateConfig;
  /** open on this reading, but a worker that closed it keeps it closed: why ("load 0.75 per core > 0.72 (to reopen)") */
  band: string | null;
}

export function gateViews(gates: readonly GateConfig[], reading: MachineReading = readMachine()): GateView[] {
  return gates.map((gate) => {
    const open = judgeGate(gate, reading, false);
    const band = open.closed ? null : judgeGate(gate, reading, true).reason;
    return { gate, ...open, band };
  });
}

/** How `gate list` says a gate's state here: "closed: …", "open", or the band. */
export function gateStateText(v: GateView): string {
  if (v.closed) return `closed: ${v.reason}`;
  const notes = [
    v.band !== null ? `a worker that closed it keeps it closed: ${v.band}` : null,
    v.unavailable.length > 0 ? `cannot read ${v.unavailable.join(', ')}` : null,
  ].filter((s) => s !== null);
  return notes.length > 0 ? `open (${notes.join('; ')})` : 'open';
}

/**
 * The gates that hold starts here, as why-waiting takes them: the closed ones, and the ones in
 * their reopening band (a waiting task there is held if a worker closed it, which is why it waits).
 */
export function closedGates(
  gates: readonly GateConfig[],
  reading?: MachineReading,
): { group: string | null; reason: string }[] {
  if (gates.length === 0) return [];
  return gateViews(gates, reading ?? readMachine()).flatMap((v) =>
    v.closed
      ? [{ group: v.gate.group, reason: v.reason! }]
      : v.band !== null
        ? [{ group: v.gate.group, reason: `${v.band}, if a worker closed it` }]
        : [],
  );
}
