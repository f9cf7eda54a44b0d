/** Named resources: their capacities as the operator sets them, and who holds and waits for them. */
import type { Database, Statement } from 'better-sqlite3';
import type { ResourceInfo } from '../../../../shared/domain.ts';
import { RESERVE_AFTER_PASSES } from '../../policy/resource-ledger.ts';
import { resourceInfos, type ResourceRow, type UsingRow } from '../resource-row.ts';
import type { Commits } from './commits.ts';
import { prepareOnUse } from './lazy-statement.ts';

export class ResourceStore {
  private readonly commits: Commits;
  private readonly upsert: Statement<[string, number]>;
  private readonly del: Statement<[string]>;
  private readonly all: Statement<[], ResourceRow>;
  private readonly using: Statement<[], UsingRow>;

  constructor(db: Database, commits: Commits) {
    this.commits = commits;
    this.upsert = prepareOnUse(
      db,
      'INSERT INTO resources (name, capacity) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET capacity = excluded.capacity',
    );
    this.del = prepareOnUse(db, 'DELETE FROM resources WHERE name = ?');
    this.all = prepareOnUse(db, 'SELECT name, capacity FROM resources ORDER BY name');
    // Written as the partial index tasks_using says it; waiting ones in claim order.
    this.using = prepareOnUse(
      db,
      `SELECT id, status, uses, resource_waits FROM tasks INDEXED BY tasks_using
       WHERE uses IS NOT NULL AND status IN ('pending', 'running', 'retrying')
       ORDER BY status = 'running' DESC, priority, run_at, id`,
    );
  }

  set(name: string, capacity: number): ResourceInfo {
    this.commits.run('durable', () => this.upsert.run(name, capacity));
    return this.list().find((r) => r.name === name)!;
  }

  remove(name: string): boolean {
    return this.commits.run('durable', () => this.del.run(name).changes > 0);
  }

  /** Every resource with its holders and waiters (tasks still in the inbox are not yet among them). */
  list(): ResourceInfo[] {
    const resources = this.all.all();
    return resources.length === 0 ? [] : resourceInfos(resources, this.using.all(), RESERVE_AFTER_PASSES);
  }
}
