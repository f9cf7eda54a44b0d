/**
 * A row read from a database is input from outside (another version, a hand edit, a restore), so
 * its columns are checked against their types: strictly where one bad row may fail its read
 * (`rowChecker`), or leniently where one bad row must not hide the others (`rowReader`: the
 * column is replaced by a stand-in and named).
 */

/** A column's type: its check, how a message names it, and what stands in for a bad value. */
export interface ColumnType {
  readonly check: (v: unknown) => boolean;
  readonly expected: string;
  readonly standIn: unknown;
}

export const columnType = (
  expected: string,
  check: (v: unknown) => boolean,
  standIn: unknown,
): ColumnType => ({
  check,
  expected,
  standIn,
});
export const TEXT = columnType('text', (v) => typeof v === 'string', '');
export const INT = columnType('an integer', (v) => Number.isSafeInteger(v), 0);
export const TIME = columnType('a number', (v) => typeof v === 'number' && Number.isFinite(v), 0);
export const FLAG = columnType('true or false', (v) => typeof v === 'boolean', false);
export const orNull = (t: ColumnType): ColumnType =>
  columnType(`${t.expected} or null`, (v) => v === null || t.check(v), null);

/** Every column of a row type with its type. */
export type RowSpec<R> = { readonly [K in keyof R]-?: ColumnType };

/**
 * A checker for rows of `table`: returns the row as `R`, or throws one line naming the table,
 * the row (by its `key` column: a number as is, text quoted) and the first column that does not
 * hold its type.
 */
export function rowChecker<R>(table: string, spec: RowSpec<R>, key = 'id'): (row: object) => R {
  const columns = Object.entries(spec) as [string, ColumnType][];
  return (row) => {
    const r = row as Record<string, unknown>;
    for (const [column, t] of columns) {
      if (!t.check(r[column])) {
        const k = r[key];
        const id = typeof k === 'number' ? ` ${k}` : typeof k === 'string' ? ` ${showValue(k)}` : '';
        throw new Error(`${table} row${id}: ${column} is ${showValue(r[column])}, expected ${t.expected}`);
      }
    }
    return row as R;
  };
}

/**
 * A lenient reader: every column that does not hold its type is replaced by its stand-in, and
 * the first of them named in `problem` (null when the row is sound).
 */
export function rowReader<R>(spec: RowSpec<R>): (row: object) => { row: R; problem: string | null } {
  const columns = Object.entries(spec) as [string, ColumnType][];
  return (row) => {
    const r = row as Record<string, unknown>;
    let problem: string | null = null;
    let out: Record<string, unknown> | null = null;
    for (const [column, t] of columns) {
      if (t.check(r[column])) continue;
      problem ??= `${column} is ${showValue(r[column])}, expected ${t.expected}`;
      out ??= { ...r };
      out[column] = t.standIn;
    }
    return { row: (out ?? r) as R, problem };
  };
}

/** A value as a message quotes it, cut to 40 characters. */
export function showValue(v: unknown): string {
  if (v === undefined) return 'missing';
  const text = typeof v === 'bigint' ? `${v}n` : (JSON.stringify(v) ?? String(v));
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}
