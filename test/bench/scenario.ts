/**
 * What a scenario is handed and what it returns: rows of figures (the median over rounds of each
 * system, and Semaforo's ratio to each peer), optional checks (pass/fail facts such as "no limit
 * exceeded") and notes. `alternate` runs the systems in turn, round after round, rotating who
 * goes first so no system always runs on a cooler or warmer machine.
 */
import { median, ratio } from './stats.ts';
import type { TrialResult } from './trial.ts';

export const SYSTEMS = ['semaforo', 'plainjob', 'bullmq', 'graphile', 'pgboss'] as const;
export type System = (typeof SYSTEMS)[number];
export const PEERS = ['plainjob', 'bullmq', 'graphile', 'pgboss'] as const;
/** How the tables name each system. */
export const SYSTEM_LABELS: Record<System, string> = {
  semaforo: 'Semaforo',
  plainjob: 'plainjob',
  bullmq: 'BullMQ',
  graphile: 'graphile-worker',
  pgboss: 'pg-boss',
};
export type Peer = (typeof PEERS)[number];

export interface Context {
  rounds: number;
  quick: boolean;
  /** the loopback port of the run's redis-server, or null when BullMQ is skipped */
  redisPort: number | null;
  /** why the PostgreSQL section cannot run here, or null */
  pgSkipped: string | null;
  bullmqSkipped: string | null;
  log: (message: string) => void;
}

export interface Goal {
  text: string;
  met: boolean | null;
}

export interface Row {
  metric: string;
  unit: string;
  better: 'higher' | 'lower';
  /** median over rounds (or a pooled figure, said in `metric`) */
  values: Partial<Record<System, number | null>>;
  rounds: Partial<Record<System, number[]>>;
  /** Semaforo's figure divided by the peer's */
  ratios: Partial<Record<Peer, number | null>>;
  goal?: Goal;
}

export interface Check {
  what: string;
  pass: boolean;
  detail: string;
}

export interface ScenarioResult {
  name: string;
  title: string;
  /** sizes and settings used, for the reader and for --json */
  setup: Record<string, unknown>;
  rows: Row[];
  checks: Check[];
  notes: string[];
}

export interface Scenario {
  name: string;
  title: string;
  run(ctx: Context): Promise<ScenarioResult>;
}

export type Trials = Partial<Record<System, (round: number) => Promise<TrialResult>>>;

/** Runs every system's trial once per round, in rotating order. */
export async function alternate(
  ctx: Context,
  label: string,
  trials: Trials,
): Promise<Partial<Record<System, TrialResult[]>>> {
  const systems = SYSTEMS.filter((s) => trials[s]);
  const out: Partial<Record<System, TrialResult[]>> = {};
  for (let r = 0; r < ctx.rounds; r++) {
    const order = systems.map((_, i) => systems[(i + r) % systems.length]!);
    for (const s of order) {
      ctx.log(`${label}: round ${r + 1}/${ctx.rounds}, ${s}`);
      const result = await trials[s]!(r);
      (out[s] ??= []).push(result);
    }
  }
  return out;
}

/** Per-system values of one field of each round's result. */
export function pick(
  results: Partial<Record<System, TrialResult[]>>,
  key: string,
): Partial<Record<System, number[]>> {
  const out: Partial<Record<System, number[]>> = {};
  for (const [s, list] of Object.entries(results) as [System, TrialResult[]][]) {
    out[s] = list.map((r) => {
      const v = r[key];
      if (typeof v !== 'number') throw new Error(`${s} result has no number "${key}"`);
      return v;
    });
  }
  return out;
}

export function makeRow(
  metric: string,
  unit: string,
  better: Row['better'],
  rounds: Partial<Record<System, number[]>>,
  goal?: (row: Row) => Goal,
): Row {
  const values: Row['values'] = {};
  for (const [s, list] of Object.entries(rounds) as [System, number[]][]) values[s] = median(list);
  return withValues(metric, unit, better, values, rounds, goal);
}

/** A row whose figures are computed, not taken from rounds (a ratio of two rows, a pooled percentile). */
export function withValues(
  metric: string,
  unit: string,
  better: Row['better'],
  values: Row['values'],
  rounds: Row['rounds'] = {},
  goal?: (row: Row) => Goal,
): Row {
  const ratios: Row['ratios'] = {};
  for (const p of PEERS) if (p in values) ratios[p] = ratio(values.semaforo ?? null, values[p] ?? null);
  const row: Row = { metric, unit, better, values, rounds, ratios };
  if (goal) row.goal = goal(row);
  return row;
}

export const atLeastRatio =
  (peer: Peer, min: number, aim?: number) =>
  (row: Row): Goal => {
    const r = row.ratios[peer] ?? null;
    const text = `>= ${min}x ${peer}${aim ? ` (aim ${aim}x)` : ''}`;
    return { text, met: r === null ? null : r >= min };
  };

export const below =
  (max: number, unit: string) =>
  (row: Row): Goal => {
    const v = row.values.semaforo ?? null;
    return { text: `< ${max} ${unit}`, met: v === null ? null : v < max };
  };

export const atMost =
  (max: number, unit: string) =>
  (row: Row): Goal => {
    const v = row.values.semaforo ?? null;
    return { text: `<= ${max}${unit}`, met: v === null ? null : v <= max };
  };
