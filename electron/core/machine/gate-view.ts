/**
 * The machine gates as a face on this machine shows them: each gate with the reading it is
 * judged on here, and whether it is closed now (without the dispatcher's hysteresis, which only
 * the dispatcher remembers).
 */
import type { GateConfig } from '../../../shared/domain.ts';
import { judgeGate, type GateJudgement } from '../policy/gate-policy.ts';
import { readMachine, type MachineReading } from './readings.ts';

export interface GateView extends GateJudgement {
  gate: GateConfig;
}

export function gateViews(gates: readonly GateConfig[], reading: MachineReading = readMachine()): GateView[] {
  return gates.map((gate) => ({ gate, ...judgeGate(gate, reading, false) }));
}

/** The closed gates, as why-waiting takes them. */
export function closedGates(gates: readonly GateConfig[]): { group: string | null; reason: string }[] {
  if (gates.length === 0) return [];
  return gateViews(gates).flatMap((v) => (v.closed ? [{ group: v.gate.group, reason: v.reason! }] : []));
}
