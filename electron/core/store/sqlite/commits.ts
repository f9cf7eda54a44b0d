/**
 * What each write transaction waits for when it commits.
 *
 * A durable commit waits until the WAL is on the disk (synchronous=FULL): results, operator
 * actions, anything a face reports as done. A relaxed commit is written to the WAL without that
 * wait (synchronous=NORMAL): it survives any crash of a process, but an OS crash or power cut can
 * drop it, together with whatever came after it and before the next durable commit. Relaxed are
 * the enqueue (queue setting `durability: 'results'`, the default), a claim without results in it
 * (lost, the task simply runs again), lease renewals and progress. With `durability: 'full'` every
 * commit is durable.
 *
 * The WAL is one sequence: a durable commit makes every relaxed one before it durable too.
 */
import type { Database, Statement, Transaction } from 'better-sqlite3';
import { prepareOnUse } from './lazy-statement.ts';
import { monotonicMs } from '../../clock.ts';

type CommitKind = 'durable' | 'relaxed';
type QueueDurability = 'results' | 'full';

type Level = 'FULL' | 'NORMAL';

/** How long a process trusts the durability setting it read before reading it again. */
const SETTING_TTL_MS = 1000;

export class Commits {
  private readonly db: Database;
  /** 'normal': this connection never waits (plainjob's setting; for comparisons only). */
  private readonly neverWait: boolean;
  private readonly readSetting: Statement<[], { durability: string }>;
  private readonly clock: () => number;
  private level: Level;
  private queue: QueueDurability = 'results';
  private readAt = -Infinity;
  /** The synchronous level of the last transaction begun here (what its commit waits for). */
  lastLevel: Level;
  /** 'normal' (see neverWait): nothing here waits for the disk, syncResults neither */
  get waitsForDisk(): boolean {
    return !this.neverWait;
  }
  /** monotonicMs() when the last write here ended (its -wal events are this process's own) */
  lastWriteAt = -Infinity;
  /** called after each outermost write here ends (a worker's checkpoints: worker-checkpoints.ts) */
  afterWrite: () => void = () => {};
  private readonly transaction: Transaction<(body: () => unknown) => unknown>;

  constructor(
    db: Database,
    neverWait: boolean,
    onBegin: () => void = () => {},
    monotonic: () => number = monotonicMs,
  ) {
    this.db = db;
    this.transaction = db.transaction((body: () => unknown) => {
      onBegin();
      return body();
    });
    this.neverWait = neverWait;
    this.clock = monotonic;
    this.readSetting = prepareOnUse(db, 'SELECT durability FROM settings WHERE id = 1');
    this.level = neverWait ? 'NORMAL' : 'FULL';
    this.lastLevel = this.level;
    this.apply(this.level);
  }

  /**
   * Runs `body` as one BEGIN IMMEDIATE transaction committed as `kind` says, after `onBegin`
   * (the store moves waiting enqueues in first: see inbox.ts). Nested in another transaction (a
   * schedule firing enqueues), it is a savepoint and the outer commit decides.
   */
  run<R>(kind: CommitKind, body: () => R): R {
    this.prepare(kind);
    try {
      return this.transaction.immediate(body) as R;
    } finally {
      this.lastWriteAt = this.clock();
      if (!this.db.inTransaction) this.afterWrite();
    }
  }

  /** Runs `body`, one statement that commits on its own (no BEGIN), as `kind` says. */
  statement<R>(kind: CommitKind, body: () => R): R {
    this.prepare(kind);
    try {
      return body();
    } finally {
      this.lastWriteAt = this.clock();
      if (!this.db.inTransaction) this.afterWrite();
    }
  }

  private prepare(kind: CommitKind): void {
    if (!this.neverWait && !this.db.inTransaction) {
      this.use(kind === 'durable' ? 'FULL' : this.relaxedLevel());
      this.lastLevel = this.level;
    }
  }

  /** This process changed the setting: use it from the next commit on. */
  queueDurabilityChanged(d: QueueDurability): void {
    this.queue = d;
    this.readAt = this.clock();
  }

  private relaxedLevel(): Level {
    const now = this.clock();
    if (now - this.readAt > SETTING_TTL_MS) {
      const d = this.readSetting.get()?.durability;
      this.queue = d === 'full' ? 'full' : 'results';
      this.readAt = now;
    }
    return this.queue === 'full' ? 'FULL' : 'NORMAL';
  }

  private use(level: Level): void {
    if (level === this.level) return;
    this.apply(level);
    this.level = level;
  }

  /**
   * Not a prepared statement run again: SQLite applies `PRAGMA synchronous = X` when the
   * statement is prepared, and a re-run of a prepared one may do nothing.
   */
  private apply(level: Level): void {
    this.db.pragma(`synchronous = ${level}`);
  }
}
