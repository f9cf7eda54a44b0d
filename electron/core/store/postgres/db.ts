/**
 * The connection layer of the PostgreSQL store: a pool whose connections use the queue's schema
 * (so all SQL names tables unqualified), return bigint as JS numbers (ids and epoch-ms times fit
 * in 2^53), and fail with a StorageError naming the location without its password.
 *
 * `Db` is what every module of this store codes against: a query, a transaction, and `changed()`
 * to have the transaction's commit wake the queue's watchers (a NOTIFY sent inside a transaction
 * is delivered at its commit, and not at all on rollback).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { toPgStorageError } from './pg-errors.ts';
import { parsePgLocation, type PgLocation } from './location.ts';

export interface Queryable {
  query<R extends object>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** mark that this transaction changed the queue: a NOTIFY goes out at its commit */
  changed(): void;
}

export interface Db extends Queryable {
  /**
   * One transaction; fn's queries run in it; rolled back if fn throws. `opening` (statements
   * without parameters) runs right after BEGIN in the same round trip; fn gets the rows of its
   * last statement.
   */
  tx<T>(fn: (q: Queryable, opened: object[]) => Promise<T>, opening?: string): Promise<T>;
  readonly schema: string;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** Per-connection type parsers, so another pg user in the same process is not affected. */
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === INT8_OID || oid === NUMERIC_OID) return Number;
    return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  },
};

/**
 * A client that never ends the process with an unhandled 'error'. A connection that dies emits
 * 'error' on its client, and the pool listens only to idle ones: one dying while checked out, or
 * killed in the same network read that completed its connect (before anyone could listen), would
 * crash the process. The query in flight fails with the error all the same, and that is what the
 * caller sees; the pool drops a dead idle client on its own.
 */
class QuietClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => {});
  }
}

/** A transaction that lost a serialization race or a deadlock is safe to run again from the top. */
const RETRYABLE = new Set(['40001', '40P01']);
const TX_ATTEMPTS = 3;

export interface PgDbOptions {
  /** connections in the pool (the listener has its own) @defaultValue 4 */
  poolSize?: number;
  /** give up connecting after this long @defaultValue 10000 */
  connectTimeoutMs?: number;
}

/** The pool-backed Db, with what the store itself needs besides (the channel, a listener client). */
export class PgDb implements Db {
  readonly schema: string;
  readonly location: string;
  /** the NOTIFY channel of this queue (one per schema, so queues sharing a database stay apart) */
  readonly channel: string;
  /** this Db's NOTIFY payload, so its own listener can tell its own commits from others' */
  readonly origin = randomUUID();
  private readonly pool: pg.Pool;
  private readonly config: pg.ClientConfig;
  private closed = false;

  constructor(where: PgLocation, options: PgDbOptions = {}) {
    this.schema = where.schema;
    this.location = where.display;
    this.channel = `semaforo.${where.schema}`;
    this.config = {
      connectionString: where.connectionString,
      // Set at connection start, so no statement of any connection runs in the wrong schema. A
      // transaction left open by a stalled host (stopped, cut off without a reset) holds the
      // claim lock or a counts row for every host: the server ends it after 5 s idle (the
      // store's transactions never wait on anything but the database between statements), and
      // its keepalive probes find a host that vanished without closing (a cable pulled) in
      // ~25 s instead of the system's two hours.
      options: [
        `-c search_path=${where.schema}`,
        '-c idle_in_transaction_session_timeout=5000',
        '-c tcp_keepalives_idle=10',
        '-c tcp_keepalives_interval=5',
        '-c tcp_keepalives_count=3',
      ].join(' '),
      // and this side notices a server that vanished the same way
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      types: TYPES,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      // names the queue in pg_stat_activity (which connections are whose)
      application_name: `semaforo ${where.schema}`,
    };
    this.pool = new pg.Pool({ ...this.config, max: options.poolSize ?? 4, Client: QuietClient });
    // An idle connection's error (server restart) must not crash the process: the next query
    // gets a fresh connection and reports its own error.
    this.pool.on('error', () => {});
  }

  /** A connection of its own, outside the pool (the LISTEN connection); the caller ends it. */
  async connectClient(): Promise<pg.Client> {
    const client = new QuietClient(this.config);
    try {
      await client.connect();
    } catch (e) {
      throw this.translate(e);
    }
    return client;
  }

  async query<R extends object>(sql: string, params?: readonly unknown[]): Promise<R[]> {
    try {
      const res = await this.pool.query<R>(sql, params as unknown[] | undefined);
      return res.rows;
    } catch (e) {
      throw this.translate(e);
    }
  }

  /** Outside a transaction a change is committed already: notify now. */
  changed(): void {
    this.notifyNow().catch(() => {});
  }

  async notifyNow(): Promise<void> {
    await this.query('SELECT pg_notify($1, $2)', [this.channel, this.origin]);
  }

  async tx<T>(fn: (q: Queryable, opened: object[]) => Promise<T>, opening?: string): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.txOnce(fn, opening);
      } catch (e) {
        const code = pgCode(e);
        if (attempt < TX_ATTEMPTS && code !== null && RETRYABLE.has(code)) continue;
        throw this.translate(e);
      }
    }
  }

  private async txOnce<T>(fn: (q: Queryable, opened: object[]) => Promise<T>, opening?: string): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw this.translate(e);
    }
    let changed = false;
    const q: Queryable = {
      query: async <R extends object>(sql: string, params?: readonly unknown[]) =>
        (await client.query<R>(sql, params as unknown[] | undefined)).rows,
      changed: () => {
        changed = true;
      },
    };
    let broken: Error | undefined;
    let xid: string | null = null;
    let committing = false;
    let out: T;
    try {
      const begun: pg.QueryResult | pg.QueryResult[] = await client.query(
        opening === undefined ? 'BEGIN' : `BEGIN; ${opening}`,
      );
      out = await fn(q, Array.isArray(begun) ? (begun[begun.length - 1]?.rows ?? []) : []);
      if (changed) {
        const r = await client.query<{ xid: string | null }>(
          'SELECT pg_notify($1, $2), txid_current_if_assigned()::text AS xid',
          [this.channel, this.origin],
        );
        xid = r.rows[0]?.xid ?? null;
      }
      committing = true;
      await client.query('COMMIT');
      return out;
    } catch (e) {
      try {
        await client.query('ROLLBACK');
      } catch {
        // the connection is gone or unusable: drop it from the pool
        broken = e instanceof Error ? e : new Error(String(e));
      }
      // A connection lost during COMMIT leaves it unknown whether the commit happened. Had it
      // and were it reported failed, a claim's tasks would stay leased to a worker that never
      // runs them (its renewals keep them), and a retried enqueue would enqueue twice: ask.
      if (committing && xid !== null && broken !== undefined && (await this.committed(xid))) return out!;
      throw e;
    } finally {
      client.release(broken);
    }
  }

  /** Whether transaction `xid` committed, asked on another connection; false when unknown. */
  private async committed(xid: string): Promise<boolean> {
    for (let i = 0; i < 20; i++) {
      let status: string | null;
      try {
        const r = await this.pool.query<{ s: string | null }>('SELECT txid_status($1::bigint) AS s', [xid]);
        status = r.rows[0]?.s ?? null;
      } catch {
        return false;
      }
      // 'in progress': the server is still ending the dead connection's transaction
      if (status !== 'in progress') return status === 'committed';
      await new Promise((r) => setTimeout(r, 25));
    }
    return false;
  }

  translate(e: unknown): unknown {
    return toPgStorageError(e, this.location);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

/** The SQLSTATE of a server error, or null for anything else. */
export function pgCode(e: unknown): string | null {
  if (e instanceof Error && 'code' in e && typeof e.code === 'string') return e.code;
  return null;
}

export function openPgDb(url: string, options?: PgDbOptions): PgDb {
  return new PgDb(parsePgLocation(url), options);
}
