/**
 * A worker's checkpoints, made after its ticks rather than inside them. SQLite's autocheckpoint
 * runs in whichever commit crosses its mark, a claim's too, and the tasks that claim started
 * then waited for it: two fsyncs and a thousand pages copied (test/bench/RESULTS.md, "napping").
 * Here the connection's autocheckpoint is off from its first tick, and each of its writes asks
 * for a check on a later turn of the event loop (after the tasks a tick claimed have started): if
 * WORKER_CHECKPOINT_PAGES or more -wal pages are not yet in the database file, a PASSIVE
 * checkpoint copies them.
 *
 * A checkpoint that fails (an I/O error, a full disk) leaves the pages in the -wal, which then
 * grows with every write until one succeeds: the store's owner is told, once per distinct error.
 */
import type { Database, Statement } from 'better-sqlite3';
import { prepareOnUse } from './lazy-statement.ts';
import { monotonicMs } from '../../clock.ts';

/** The least time (ms) between two checks: a few ms of writes add few pages. */
const CHECK_MS = 2;

interface WalState {
  busy: number;
  log: number;
  checkpointed: number;
}

export class WorkerCheckpoints {
  private readonly db: Database;
  private readonly pages: number;
  /** NOOP (SQLite 3.51+): the -wal's pages and how many are checkpointed, with no work done */
  private readonly state: Statement<[], WalState>;
  private started = false;
  private due = false;
  private checkedAt = -Infinity;
  private readonly report: (message: string) => void;
  /** the last failure told, so a failing disk is told once, not at every write */
  private told: string | null = null;

  constructor(db: Database, pages: number, report: (message: string) => void = () => {}) {
    this.db = db;
    this.pages = pages;
    this.report = report;
    this.state = prepareOnUse(db, 'PRAGMA wal_checkpoint(NOOP)');
  }

  /** After a tick: from the first, this connection is a worker's, and its checkpoints are here. */
  afterTick(): void {
    if (!this.started) {
      this.started = true;
      this.db.pragma('wal_autocheckpoint = 0');
    }
    this.afterWrite();
  }

  /**
   * After any write of a worker's connection (commits.ts calls it for each: operator actions, a
   * purge, live output, whether or not ticks still come); nothing on another connection, which
   * keeps its autocheckpoint. Checks on the next turn of the event loop, and at most every
   * CHECK_MS: a check costs ~20 µs, a limit-1 tick ~600.
   */
  afterWrite(): void {
    if (!this.started || this.due) return;
    this.due = true;
    const wait = this.checkedAt + CHECK_MS - monotonicMs();
    const check = () => {
      this.due = false;
      this.checkedAt = monotonicMs();
      this.checkpointIfDue();
    };
    if (wait <= 0) setImmediate(check);
    else setTimeout(check, wait).unref();
  }

  /** Copies the -wal's pages into the database file once enough wait; never throws. */
  checkpointIfDue(): void {
    if (!this.db.open || this.db.inTransaction) return;
    try {
      const s = this.state.get();
      if (s !== undefined && s.log - s.checkpointed >= this.pages) this.db.pragma('wal_checkpoint(PASSIVE)');
      this.told = null;
    } catch (err) {
      // As an autocheckpoint's failure: the pages stay in the -wal, and the next write tries again.
      const message =
        `cannot copy the -wal file of ${this.db.name} into it (${err instanceof Error ? err.message : String(err)}): ` +
        'the -wal file grows with every write until a checkpoint succeeds';
      if (message === this.told) return;
      this.told = message;
      this.report(message);
    }
  }
}
