/** Machine gates, as SQLite's (../sqlite/gates.ts). */
import type { GateConfig } from '../../../../shared/domain.ts';
import type { GateUpdate } from '../../../../shared/schemas.ts';
import { gateConfig, scopeOf, updatedGate, type GateRow } from '../gate-row.ts';
import type { Db, Queryable } from './db.ts';

export async function setGate(db: Db, group: string | null, update: GateUpdate): Promise<GateConfig> {
  return db.tx(async (q) => {
    const [row] = await q.query<GateRow>('SELECT * FROM gates WHERE scope = $1 FOR UPDATE', [scopeOf(group)]);
    const g = updatedGate(group, row ? gateConfig(row) : null, update);
    await q.query(
      `INSERT INTO gates (scope, max_load, min_free_memory, on_ac, when_idle_ms, pause_running)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (scope) DO UPDATE SET max_load = excluded.max_load,
         min_free_memory = excluded.min_free_memory, on_ac = excluded.on_ac,
         when_idle_ms = excluded.when_idle_ms, pause_running = excluded.pause_running`,
      [scopeOf(group), g.maxLoad, g.minFreeMemory, g.onAc, g.whenIdleMs, g.pauseRunning],
    );
    q.changed();
    return g;
  });
}

export async function removeGate(db: Db, group: string | null): Promise<boolean> {
  return db.tx(async (q) => {
    const gone = await q.query<{ scope: string }>('DELETE FROM gates WHERE scope = $1 RETURNING scope', [
      scopeOf(group),
    ]);
    if (gone.length > 0) q.changed();
    return gone.length > 0;
  });
}

export async function listGates(q: Queryable): Promise<GateConfig[]> {
  return (await q.query<GateRow>('SELECT * FROM gates ORDER BY scope')).map(gateConfig);
}
