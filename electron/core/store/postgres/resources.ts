/** Named resources, as SQLite's (../sqlite/resources.ts): capacities, holders and waiters. */
import type { ResourceInfo } from '../../../../shared/domain.ts';
import { RESERVE_AFTER_PASSES } from '../../policy/resource-ledger.ts';
import { resourceInfos, type ResourceRow, type UsingRow } from '../resource-row.ts';
import type { Db, Queryable } from './db.ts';

export async function setResource(db: Db, name: string, capacity: number): Promise<ResourceInfo> {
  await db.tx(async (q) => {
    await q.query(
      `INSERT INTO resources (name, capacity) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET capacity = excluded.capacity`,
      [name, capacity],
    );
    q.changed();
  });
  return (await listResources(db)).find((r) => r.name === name)!;
}

export async function removeResource(db: Db, name: string): Promise<boolean> {
  return db.tx(async (q) => {
    const gone = await q.query<{ name: string }>('DELETE FROM resources WHERE name = $1 RETURNING name', [
      name,
    ]);
    if (gone.length > 0) q.changed();
    return gone.length > 0;
  });
}

/** Every resource with its holders and waiters, read in one transaction. */
export async function listResources(db: Db): Promise<ResourceInfo[]> {
  return db.tx(async (q: Queryable) => {
    const resources = await q.query<ResourceRow>('SELECT name, capacity FROM resources ORDER BY name');
    if (resources.length === 0) return [];
    const using = await q.query<UsingRow>(
      `SELECT id, status, uses, resource_waits FROM tasks
       WHERE uses IS NOT NULL AND status IN ('pending', 'running', 'retrying')
       ORDER BY status = 'running' DESC, priority, run_at, id`,
    );
    return resourceInfos(resources, using, RESERVE_AFTER_PASSES);
  });
}
