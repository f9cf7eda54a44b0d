/**
 * Copies a whole queue from one backend to another (`semaforo migrate`): today from a SQLite
 * file into a PostgreSQL schema. A dedicated export/import pair rather than the contract: the
 * contract's reads leave out what a copy must keep (ids, the processes holding leases and
 * reservations, the due time each scheduled task was fired for) and its writes cannot set them;
 * and reading 100,000 tasks one getTask at a time would cost a round trip each.
 */
import { isPgUrl } from './postgres/location.ts';
import { openPgDb } from './postgres/db.ts';
import { importIntoPg, type ImportOptions } from './postgres/import.ts';
import { migratePg } from './postgres/migrations.ts';
import type { CopyReport } from './queue-export.ts';
import { exportSqliteQueue } from './sqlite/export.ts';

export type { CopyReport };
export { TargetNotEmptyError } from './postgres/import.ts';

export async function copyQueue(from: string, to: string, options: ImportOptions): Promise<CopyReport> {
  if (isPgUrl(from)) throw new Error('--from: copying out of PostgreSQL is not supported; give a queue file');
  if (!isPgUrl(to)) throw new Error('--to: give a postgres:// URL (a copy into a file is not supported)');
  const target = openPgDb(to);
  try {
    // The target's schema is created (or brought up to date) before the source is touched.
    await migratePg(target);
    const source = await exportSqliteQueue(from);
    try {
      return await importIntoPg(target, target.location, source, options);
    } finally {
      await source.close();
    }
  } finally {
    await target.close();
  }
}
