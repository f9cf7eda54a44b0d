/**
 * A SQLite queue file read whole, for a copy into another backend (store/queue-export.ts). The
 * file is first opened as a store, which migrates an older schema and moves the tasks still in
 * the inbox into `tasks`; then every table is read in one read transaction (one snapshot, so the
 * counts verified after the copy are those of the rows copied).
 */
import fs from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { Database } from './driver.ts';
import { EXPORT_TABLES, type ExportRow, type ExportTable, type QueueExport } from '../queue-export.ts';
import { openSqliteStore } from './async-store.ts';
import { toStorageError } from './storage-errors.ts';

/** Columns stored as 0/1 that the other side holds as booleans. */
const FLAGS: Readonly<Record<ExportTable, readonly string[]>> = {
  settings: ['paused', 'notify_enabled'],
  groups: ['paused', 'adaptive'],
  group_starts: [],
  group_limits: [],
  resources: [],
  gates: ['on_ac', 'pause_running'],
  schedules: ['enabled'],
  tasks: ['cancel_requested'],
  history: [],
};

/** How each table is paged: by its key (rowid where there is one; groups are WITHOUT ROWID). */
const KEY: Readonly<Record<ExportTable, string>> = {
  settings: 'rowid',
  groups: 'name',
  group_starts: 'rowid',
  group_limits: 'rowid',
  resources: 'name',
  gates: 'scope',
  schedules: 'rowid',
  tasks: 'rowid',
  history: 'rowid',
};

export async function exportSqliteQueue(file: string): Promise<QueueExport> {
  if (!fs.existsSync(file)) throw new Error(`no queue file at ${file}`);
  // A write moves what waits in the inbox into tasks (every write transaction does).
  const store = openSqliteStore(file);
  try {
    await store.updateSettings({});
  } finally {
    await store.close();
  }
  let db: BetterSqlite3.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw toStorageError(err, file) ?? err;
  }
  try {
    db.exec('BEGIN');
    const one = (sql: string) => db.prepare<[], { n: number | null }>(sql).get()!.n ?? 0;
    if (one('SELECT count(*) AS n FROM inbox WHERE n > 0') > 0)
      throw new Error(
        `tasks are being enqueued into ${file} meanwhile: stop every process using it (semaforo work, serve, the tray app) and try again`,
      );
    const counts = Object.fromEntries(
      EXPORT_TABLES.map((t) => [t, one(`SELECT count(*) AS n FROM ${t}`)]),
    ) as Record<ExportTable, number>;
    const statuses = db
      .prepare<[], { status: string; n: number }>('SELECT status, count(*) AS n FROM tasks GROUP BY status')
      .all();
    const lastTaskId = Math.max(one('SELECT max(id) AS n FROM tasks'), one('SELECT max(id) AS n FROM inbox'));
    return {
      location: file,
      counts,
      taskStatuses: Object.fromEntries(statuses.map((s) => [s.status, s.n])),
      lastTaskId,
      rows: (table, batch) => pages(db, table, batch),
      close: async () => {
        if (db.inTransaction) db.exec('COMMIT');
        db.close();
      },
    };
  } catch (err) {
    db.close();
    throw toStorageError(err, file) ?? err;
  }
}

async function* pages(
  db: BetterSqlite3.Database,
  table: ExportTable,
  batch: number,
): AsyncIterable<ExportRow[]> {
  const key = KEY[table];
  // The first page has no lower bound: a text key may be '' (the queue-wide gate's scope), and a
  // number bound against a TEXT column is compared as text ('-Inf' sorts after '').
  const select = `SELECT ${key} AS _key, * FROM ${table}`;
  const first = db.prepare<[number], Record<string, unknown>>(`${select} ORDER BY ${key} LIMIT ?`);
  const page = db.prepare<[string | number, number], Record<string, unknown>>(
    `${select} WHERE ${key} > ? ORDER BY ${key} LIMIT ?`,
  );
  const flags = FLAGS[table];
  let after: string | number | null = null;
  for (;;) {
    const rows = after === null ? first.all(batch) : page.all(after, batch);
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!._key as string | number;
    yield rows.map((r) => {
      const out: Record<string, ExportRow[string]> = {};
      for (const [column, v] of Object.entries(r)) {
        if (column === '_key') continue;
        out[column] = flags.includes(column) ? v === 1 : (v as ExportRow[string]);
      }
      return out;
    });
    if (rows.length < batch) return;
  }
}
