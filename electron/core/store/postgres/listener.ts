/**
 * `watch` for the PostgreSQL store: one LISTEN connection of its own (a pooled one would be
 * handed to queries), made when the store opens, so a commit made right after `watch` returns
 * is heard (a connection made on the first `watch` would miss what commits meanwhile). Every write transaction that changed the
 * queue NOTIFYs at its commit (db.ts); a notification from this store's own Db is skipped, as
 * SQLite's data_version skips the connection's own commits. Calls are coalesced: a burst of
 * commits read in one go calls each listener once.
 *
 * A lost connection (server restart, pg_terminate_backend) is made again with backoff, told
 * once per distinct failure; once it is back every listener is called once, since commits made
 * meanwhile were not heard.
 */
import type pg from 'pg';
import type { PgDb } from './db.ts';

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;

export class PgListener {
  private readonly db: PgDb;
  private readonly onError: (message: string) => void;
  private readonly listeners = new Set<() => void>();
  private client: pg.Client | null = null;
  private connecting = false;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private callScheduled = false;
  private closed = false;
  /** resolves once the first LISTEN is in place (tests wait for it) */
  private readyWaiters: (() => void)[] = [];

  constructor(db: PgDb, onError: (message: string) => void) {
    this.db = db;
    this.onError = onError;
  }

  /** Makes the LISTEN connection; rejects (with a StorageError) if it cannot. */
  async start(): Promise<void> {
    const client = await this.db.connectClient();
    try {
      await this.listenOn(client);
    } catch (e) {
      await dispose(client);
      throw this.db.translate(e);
    }
    this.client = client;
  }

  watch(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private async listenOn(client: pg.Client): Promise<void> {
    client.on('notification', (msg) => {
      if (msg.payload !== this.db.origin) this.schedule();
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.query(`LISTEN "${this.db.channel}"`);
  }

  /** Resolves once a LISTEN connection is up (now, if it is). */
  ready(): Promise<void> {
    if (this.client !== null) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  private async connect(): Promise<void> {
    this.connecting = true;
    let client: pg.Client | null = null;
    try {
      client = await this.db.connectClient();
      await this.listenOn(client);
    } catch (e) {
      if (client) void dispose(client);
      this.connecting = false;
      if (this.closed) return;
      this.onError(`cannot listen for changes on ${this.db.location}: ${(e as Error).message}; trying again`);
      this.retryLater();
      return;
    }
    this.connecting = false;
    if (this.closed) {
      void dispose(client);
      return;
    }
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    for (const w of this.readyWaiters.splice(0)) w();
    // What was committed while no one listened was not heard: have the caller read again.
    this.schedule();
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    void dispose(client);
    this.client = null;
    if (this.closed) return;
    this.onError(`lost the connection listening for changes on ${this.db.location}; reconnecting`);
    this.retryLater();
  }

  private retryLater(): void {
    if (this.retryTimer !== null) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.closed && this.client === null && !this.connecting) void this.connect();
    }, wait);
    this.retryTimer.unref();
  }

  private schedule(): void {
    if (this.callScheduled) return;
    this.callScheduled = true;
    setImmediate(() => {
      this.callScheduled = false;
      if (this.closed) return;
      for (const l of [...this.listeners]) l();
    });
  }

  private disconnect(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const c = this.client;
    this.client = null;
    if (c) void dispose(c);
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.disconnect();
  }
}

/** Ends a listener connection, deaf to what it still says (a late error of a dead socket). */
async function dispose(client: pg.Client): Promise<void> {
  client.removeAllListeners();
  client.on('error', () => {});
  await client.end().catch(() => {});
}
