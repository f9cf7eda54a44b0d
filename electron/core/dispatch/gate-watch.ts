/**
 * The machine gates as this dispatcher judges them, on the machine it runs on: samples the
 * readings when a claim asks (inside the tick, so the gates read are the ones claimed under),
 * remembers which gates it closed (the policy's hysteresis needs it), says once that a reading
 * is not available, and tells the dispatcher to look again while a gate is closed (no event
 * says that the load went down).
 */
import type { GateConfig } from '../../../shared/domain.ts';
import { judgeGate } from '../policy/gate-policy.ts';
import { readMachine, type MachineReading } from '../machine/readings.ts';
import type { GateVerdict } from '../store/gate-row.ts';

/** How often a closed gate is read again. */
export const GATE_SAMPLE_MS = 2000;

export class GateWatch {
  private readonly read: () => MachineReading;
  private readonly say: (line: string) => void;
  private closed = new Set<string>();
  private readonly told = new Set<string>();

  /** `read` absent: this machine's /proc and /sys */
  constructor(read: (() => MachineReading) | undefined, say: (line: string) => void) {
    this.read = read ?? (() => readMachine());
    this.say = say;
  }

  /** Whether the last judgement closed a gate: then the dispatcher looks again in GATE_SAMPLE_MS. */
  get anyClosed(): boolean {
    return this.closed.size > 0;
  }

  judge(gates: readonly GateConfig[]): GateVerdict {
    // A closed gate that was removed lets starts through again: say so, as when one opens.
    if (this.closed.size > 0) {
      const kept = new Set(gates.map((g) => g.group ?? ''));
      for (const scope of this.closed)
        if (!kept.has(scope)) this.say(`${gateName(scope)} removed while closed: starts allowed again`);
    }
    if (gates.length === 0) {
      this.closed.clear();
      return { queueClosed: false, closedGroups: this.closed };
    }
    const reading = this.read();
    const closed = new Set<string>();
    for (const g of gates) {
      const scope = g.group ?? '';
      const j = judgeGate(g, reading, this.closed.has(scope));
      const name = gateName(scope);
      for (const what of j.unavailable) {
        const key = `${scope}\0${what}`;
        if (!this.told.has(key)) {
          this.told.add(key);
          this.say(`${name} stays open on ${what}: this machine does not tell it`);
        }
      }
      if (j.closed !== this.closed.has(scope))
        this.say(j.closed ? `${name} closed: ${j.reason}; no new start` : `${name} opened`);
      if (j.closed) closed.add(scope);
    }
    this.closed = closed;
    return { queueClosed: closed.has(''), closedGroups: closed };
  }
}

function gateName(scope: string): string {
  return scope === '' ? 'the queue gate' : `the gate of group ${scope}`;
}
