/**
 * Machine gates as every backend stores them: one row of `gates` per scope ('' for the whole
 * queue, else a group's name). The readings they are judged on are not stored: each dispatcher
 * reads its own machine (policy/gate-policy.ts).
 */
import type { GateConfig } from '../../../shared/domain.ts';
import type { GateUpdate } from '../../../shared/schemas.ts';

export interface GateRow {
  scope: string;
  max_load: number | null;
  min_free_memory: number | null;
  /** a flag: boolean on PostgreSQL, 0/1 on SQLite */
  on_ac: boolean | number;
  when_idle_ms: number | null;
  /** a flag, as on_ac */
  pause_running: boolean | number;
}

export const scopeOf = (group: string | null): string => group ?? '';

export function gateConfig(r: GateRow): GateConfig {
  return {
    group: r.scope === '' ? null : r.scope,
    maxLoad: r.max_load,
    minFreeMemory: r.min_free_memory,
    onAc: r.on_ac === true || r.on_ac === 1,
    whenIdleMs: r.when_idle_ms === null ? null : Number(r.when_idle_ms),
    pauseRunning: r.pause_running === true || r.pause_running === 1,
  };
}

/** The gate after `update`, from what it was (null: a new gate). */
export function updatedGate(group: string | null, was: GateConfig | null, update: GateUpdate): GateConfig {
  return {
    group,
    maxLoad: update.maxLoad !== undefined ? update.maxLoad : (was?.maxLoad ?? null),
    minFreeMemory: update.minFreeMemory !== undefined ? update.minFreeMemory : (was?.minFreeMemory ?? null),
    onAc: update.onAc ?? was?.onAc ?? false,
    whenIdleMs: update.whenIdleMs !== undefined ? update.whenIdleMs : (was?.whenIdleMs ?? null),
    pauseRunning: update.pauseRunning ?? was?.pauseRunning ?? false,
  };
}

/** What a dispatcher's judgement of the gates holds back in one claim. */
export interface GateVerdict {
  /** no start at all */
  queueClosed: boolean;
  /** no start in these groups */
  closedGroups: ReadonlySet<string>;
}
