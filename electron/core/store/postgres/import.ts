/**
 * A whole queue (store/queue-export.ts) written into a PostgreSQL queue, as one transaction: the
 * target ends up holding the copy, verified row count by row count, or is left as it was. Each
 * row is first checked against the target's column types (rows.ts), so a damaged source row is
 * named by table, row and column; rows then go in as JSON batches through
 * json_populate_recordset; the per-group counts follow from the insert triggers, and the id
 * sequences are moved past the copied ids.
 */
import {
  EXPORT_TABLES,
  type CopyReport,
  type ExportRow,
  type ExportTable,
  type ExportValue,
  type QueueExport,
} from '../queue-export.ts';
import type { Db, Queryable } from './db.ts';
import { FLAG, INT, TEXT, TIME, orNull, rowChecker, type ColumnType } from '../column-types.ts';

/** Rows per statement, and the JSON text a statement may carry (payloads can be large). */
const BATCH_ROWS = 2000;
const BATCH_CHARS = 8 * 1024 * 1024;

/** The tables that make a queue not empty (settings always has its one row). */
const CONTENT: readonly ExportTable[] = [
  'tasks',
  'history',
  'schedules',
  'groups',
  'group_starts',
  'group_limits',
  'resources',
  'gates',
];

/** The column that names a row of each table in a message. */
const ROW_KEY: Readonly<Record<ExportTable, string>> = {
  settings: 'id',
  groups: 'name',
  group_starts: 'group_name',
  group_limits: 'group_name',
  resources: 'name',
  gates: 'scope',
  schedules: 'id',
  tasks: 'id',
  history: 'id',
};

/** A value each column type takes (after `storable`); a type not listed is left to the server. */
const COLUMN_TYPES: Readonly<Record<string, ColumnType>> = {
  bigint: INT,
  'double precision': TIME,
  boolean: FLAG,
  text: TEXT,
};
const ANY: ColumnType = { check: () => true, expected: 'anything', standIn: null };

/** Tables whose ids come from an identity sequence. */
const IDENTITY: readonly ExportTable[] = ['tasks', 'history', 'schedules'];

export interface ImportOptions {
  /** empty a target that holds a queue first (otherwise such a target is refused) */
  replace: boolean;
  /** told after each batch */
  onProgress?: (table: ExportTable, done: number, total: number) => void;
}

export class TargetNotEmptyError extends Error {
  constructor(location: string, held: string) {
    super(
      `${location} already holds a queue (${held}); give --replace to replace it with the copy, or use another schema (?schema=NAME)`,
    );
    this.name = 'TargetNotEmptyError';
  }
}

export async function importIntoPg(
  db: Db,
  location: string,
  source: QueueExport,
  options: ImportOptions,
): Promise<CopyReport> {
  const report = await db.tx(async (q) => {
    const held = await contentOf(q);
    const replaced = held.length > 0;
    if (replaced && !options.replace) throw new TargetNotEmptyError(location, held.join(', '));
    if (replaced) {
      // Its counters go with it: the insert triggers count the copy afresh.
      await q.query(
        'TRUNCATE tasks, history, groups, group_starts, group_limits, resources, gates, schedules, counts RESTART IDENTITY',
      );
    } else {
      // No worker may write between the check and the commit.
      await q.query(`LOCK TABLE ${EXPORT_TABLES.join(', ')}, counts IN EXCLUSIVE MODE`);
    }
    await q.query('DELETE FROM settings');
    const copied = {} as Record<ExportTable, number>;
    for (const table of EXPORT_TABLES) {
      copied[table] = await copyTable(q, table, source, options.onProgress);
    }
    await moveSequences(q, source.lastTaskId);
    const taskStatuses = await verify(q, source, copied);
    q.changed();
    return { from: source.location, to: location, copied, taskStatuses, replaced };
  });
  // Planner statistics now, not at autovacuum's leisure: without them a page of 100 pending
  // tasks out of 50,000 took 48 ms instead of 3 (a bitmap scan of them all).
  await db.query(`ANALYZE ${EXPORT_TABLES.join(', ')}, counts`);
  return report;
}

async function contentOf(q: Queryable): Promise<string[]> {
  const [row] = await q.query<Record<string, number>>(
    `SELECT ${CONTENT.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(', ')}`,
  );
  return CONTENT.filter((t) => (row?.[t] ?? 0) > 0).map((t) => `${row![t]} ${t.replace('_', ' ')}`);
}

/** The target's columns of `table` with the type of value each takes. */
async function columnsOf(q: Queryable, table: string): Promise<Map<string, ColumnType>> {
  const rows = await q.query<{ column_name: string; data_type: string; is_nullable: string }>(
    `SELECT column_name, data_type, is_nullable FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1`,
    [table],
  );
  return new Map(
    rows.map((r) => {
      const t = COLUMN_TYPES[r.data_type] ?? ANY;
      return [r.column_name, r.is_nullable === 'YES' ? orNull(t) : t];
    }),
  );
}

/** A source row the target cannot hold, named; nothing is written (the transaction rolls back). */
function unfit(source: QueueExport, what: string): Error {
  return new Error(`cannot copy ${what}; fix or delete that row in ${source.location}, nothing was copied`);
}

async function copyTable(
  q: Queryable,
  table: ExportTable,
  source: QueueExport,
  onProgress: ImportOptions['onProgress'],
): Promise<number> {
  const target = await columnsOf(q, table);
  let columns: string[] | null = null;
  let check: (row: object) => object = (row) => row;
  let done = 0;
  const total = source.counts[table];
  for await (const page of source.rows(table, BATCH_ROWS)) {
    if (columns === null) {
      columns = Object.keys(page[0] ?? {});
      // A column the target lacks would be dropped silently: refuse instead.
      const lost = columns.filter((c) => !target.has(c));
      if (lost.length > 0)
        throw new Error(
          `${table}: the target has no column ${lost.join(', ')}; update Semaforo where it runs`,
        );
      check = rowChecker(table, Object.fromEntries(columns.map((c) => [c, target.get(c)!])), ROW_KEY[table]);
    }
    const rows = page.map((row) => {
      const r = storableRow(row);
      try {
        return check(r);
      } catch (e) {
        throw unfit(source, (e as Error).message);
      }
    });
    for (const chunk of bySize(rows)) {
      const list = columns.join(', ');
      await q.query(
        `INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${table}, $1::json)`,
        [chunk],
      );
    }
    done += page.length;
    onProgress?.(table, done, total);
  }
  return done;
}

/** The columns PostgreSQL holds as fractions (double precision); every other number is a bigint. */
const FRACTIONAL = new Set(['progress', 'eff_concurrency', 'eff_rate', 'rate_ceiling', 'rate']);

/**
 * What PostgreSQL cannot hold as SQLite did: NUL in text (a handler's output of binary bytes)
 * becomes U+FFFD, as would any lone surrogate; a fractional time (SQLite keeps a Retry-After of
 * 1.5 s as is) is rounded up to the whole ms the bigint column holds, so no wait gets shorter.
 */
function storable(key: string, v: ExportValue): ExportValue {
  if (typeof v === 'string') return v.replaceAll('\0', '\uFFFD').toWellFormed();
  if (typeof v === 'number' && !Number.isInteger(v) && !FRACTIONAL.has(key)) return Math.ceil(v);
  return v;
}

const storableRow = (row: ExportRow): ExportRow =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, storable(k, v)]));

/** The rows as JSON arrays of at most BATCH_CHARS (a single larger row goes alone). */
function bySize(page: readonly object[]): string[] {
  const out: string[] = [];
  let parts: string[] = [];
  let size = 0;
  for (const row of page) {
    const text = JSON.stringify(row);
    if (parts.length > 0 && size + text.length > BATCH_CHARS) {
      out.push(`[${parts.join(',')}]`);
      parts = [];
      size = 0;
    }
    parts.push(text);
    size += text.length + 1;
  }
  if (parts.length > 0) out.push(`[${parts.join(',')}]`);
  return out;
}

/** New rows take ids above the copied ones; new tasks also above every id the source handed out. */
async function moveSequences(q: Queryable, lastTaskId: number): Promise<void> {
  for (const table of IDENTITY) {
    const floor = table === 'tasks' ? lastTaskId : 0;
    await q.query(
      `SELECT setval(pg_get_serial_sequence($1, 'id'), greatest(m, 1), m > 0)
       FROM (SELECT greatest(coalesce(max(id), 0), $2::bigint) AS m FROM ${table}) x`,
      [table, floor],
    );
  }
}

/** The target's row counts, per table and per task status, must be the source's; throws otherwise. */
async function verify(
  q: Queryable,
  source: QueueExport,
  copied: Record<ExportTable, number>,
): Promise<Record<string, number>> {
  const problems: string[] = [];
  if (source.counts.settings !== 1)
    problems.push(`settings: ${source.counts.settings} rows in the source, expected 1`);
  for (const table of EXPORT_TABLES) {
    const [row] = await q.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
    const n = row?.n ?? 0;
    if (n !== source.counts[table] || copied[table] !== source.counts[table])
      problems.push(
        `${table}: ${source.counts[table]} in the source, ${copied[table]} copied, ${n} in the target`,
      );
  }
  const rows = await q.query<{ status: string; n: number }>(
    'SELECT status, sum(n)::bigint AS n FROM counts GROUP BY status HAVING sum(n) <> 0',
  );
  const statuses = Object.fromEntries(rows.map((r) => [r.status, r.n]));
  for (const status of new Set([...Object.keys(statuses), ...Object.keys(source.taskStatuses)])) {
    if ((statuses[status] ?? 0) !== (source.taskStatuses[status] ?? 0))
      problems.push(
        `${status} tasks: ${source.taskStatuses[status] ?? 0} in the source, ${statuses[status] ?? 0} counted in the target`,
      );
  }
  if (problems.length > 0)
    throw new Error(`the copy does not match its source, so nothing was written: ${problems.join('; ')}`);
  return statuses;
}
