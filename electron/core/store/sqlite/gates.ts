/** Machine gates: what the operator set, per scope (../gate-row.ts). */
import type { Database, Statement } from 'better-sqlite3';
import type { GateConfig } from '../../../../shared/domain.ts';
import type { GateUpdate } from '../../../../shared/schemas.ts';
import { gateConfig, scopeOf, updatedGate, type GateRow } from '../gate-row.ts';
import type { Commits } from './commits.ts';
import { prepareOnUse } from './lazy-statement.ts';

export class GateStore {
  private readonly commits: Commits;
  private readonly one: Statement<[string], GateRow>;
  private readonly all: Statement<[], GateRow>;
  private readonly upsert: Statement<[string, number | null, number | null, number, number | null, number]>;
  private readonly del: Statement<[string]>;

  constructor(db: Database, commits: Commits) {
    this.commits = commits;
    this.one = prepareOnUse(db, 'SELECT * FROM gates WHERE scope = ?');
    this.all = prepareOnUse(db, 'SELECT * FROM gates ORDER BY scope');
    this.upsert = prepareOnUse(
      db,
      `INSERT INTO gates (scope, max_load, min_free_memory, on_ac, when_idle_ms, pause_running)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope) DO UPDATE SET max_load = excluded.max_load,
         min_free_memory = excluded.min_free_memory, on_ac = excluded.on_ac,
         when_idle_ms = excluded.when_idle_ms, pause_running = excluded.pause_running`,
    );
    this.del = prepareOnUse(db, 'DELETE FROM gates WHERE scope = ?');
  }

  set(group: string | null, update: GateUpdate): GateConfig {
    return this.commits.run('durable', () => {
      const row = this.one.get(scopeOf(group));
      const g = updatedGate(group, row ? gateConfig(row) : null, update);
      this.upsert.run(
        scopeOf(group),
        g.maxLoad,
        g.minFreeMemory,
        g.onAc ? 1 : 0,
        g.whenIdleMs,
        g.pauseRunning ? 1 : 0,
      );
      return g;
    });
  }

  remove(group: string | null): boolean {
    return this.commits.run('durable', () => this.del.run(scopeOf(group)).changes > 0);
  }

  list(): GateConfig[] {
    return this.all.all().map(gateConfig);
  }
}
