/**
 * Statements prepared on first use. The store's parts hold some 80 statements, and preparing
 * them all when the file opens (SQLite parses each against the schema) was about a tenth of the
 * CPU of a `semaforo enqueue`, which runs three of them (RESULTS.md, section 8). A statement
 * here is prepared the first time it runs, with the modes (pluck, raw, ...) asked of it before.
 */
import type { ColumnDefinition, Database, RunResult, Statement } from 'better-sqlite3';

type Mode = 'pluck' | 'expand' | 'raw' | 'safeIntegers';

class LazyStatement<P extends unknown[], R> {
  readonly #db: Database;
  readonly source: string;
  #stmt: Statement<P, R> | undefined;
  readonly #modes: [Mode, boolean | undefined][] = [];

  constructor(db: Database, source: string) {
    this.#db = db;
    this.source = source;
  }

  get #prepared(): Statement<P, R> {
    if (this.#stmt) return this.#stmt;
    const stmt = this.#db.prepare<P, R>(this.source) as Statement<P, R>;
    for (const [mode, on] of this.#modes) apply(stmt, mode, on);
    this.#stmt = stmt;
    return stmt;
  }

  get database(): Database {
    return this.#db;
  }
  get reader(): boolean {
    return this.#prepared.reader;
  }
  get readonly(): boolean {
    return this.#prepared.readonly;
  }
  get busy(): boolean {
    return this.#stmt?.busy ?? false;
  }

  run(...params: P): RunResult {
    return this.#prepared.run(...params);
  }
  get(...params: P): R | undefined {
    return this.#prepared.get(...params);
  }
  all(...params: P): R[] {
    return this.#prepared.all(...params);
  }
  iterate(...params: P): IterableIterator<R> {
    return this.#prepared.iterate(...params);
  }
  columns(): ColumnDefinition[] {
    return this.#prepared.columns();
  }
  bind(...params: P): this {
    this.#prepared.bind(...params);
    return this;
  }
  #mode(mode: Mode, on: boolean | undefined): this {
    if (this.#stmt) apply(this.#stmt, mode, on);
    else this.#modes.push([mode, on]);
    return this;
  }
  pluck(on?: boolean): this {
    return this.#mode('pluck', on);
  }
  expand(on?: boolean): this {
    return this.#mode('expand', on);
  }
  raw(on?: boolean): this {
    return this.#mode('raw', on);
  }
  safeIntegers(on?: boolean): this {
    return this.#mode('safeIntegers', on);
  }
}

/** better-sqlite3 takes no argument or a boolean: `pluck(undefined)` throws. */
function apply(stmt: Statement<unknown[], unknown>, mode: Mode, on: boolean | undefined): void {
  if (on === undefined) stmt[mode]();
  else stmt[mode](on);
}

/** Like `db.prepare`, but SQLite prepares the statement when it first runs. */
export function prepareOnUse<P extends unknown[] | object = unknown[], R = unknown>(
  db: Database,
  source: string,
): P extends unknown[] ? Statement<P, R> : Statement<[P], R> {
  return new LazyStatement(db, source) as unknown as P extends unknown[]
    ? Statement<P, R>
    : Statement<[P], R>;
}
