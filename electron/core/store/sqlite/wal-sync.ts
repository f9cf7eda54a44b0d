/**
 * Group commit's wait for the disk: one fdatasync of the -wal file makes every commit written to
 * it before the call durable (the log is one sequence), as synchronous=FULL would have at each of
 * them. It runs on libuv's thread pool, so the event loop goes on with the next ticks meanwhile.
 *
 * The file stays open between syncs, as SQLite keeps its own -wal descriptor for as long as the
 * connection is open: the one file this connection writes, and one trip to the thread pool a sync
 * instead of three (open, sync, close). A missing -wal file holds nothing unsynced: SQLite removes
 * it only after checkpointing it into the database file, with a sync.
 *
 * (fs.promises, read when first needed: loading it brings readline and the file watchers, which a
 * store without group commit never uses.)
 */
import fs from 'node:fs';

export class WalSync {
  private readonly wal: string;
  private handle: fs.promises.FileHandle | null = null;
  private closed = false;

  constructor(file: string) {
    this.wal = `${file}-wal`;
  }

  async sync(): Promise<void> {
    const handle = this.handle ?? (await this.open());
    await handle?.datasync();
  }

  private async open(): Promise<fs.promises.FileHandle | null> {
    if (this.closed) return null;
    let handle;
    try {
      handle = await fs.promises.open(this.wal, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    // Closed meanwhile, or opened by another sync: keep one descriptor.
    if (this.closed || this.handle !== null) {
      await handle.close();
      return this.handle;
    }
    this.handle = handle;
    return handle;
  }

  /** Closes the file once; a sync under way finishes first (the descriptor is the kernel's to keep until then). */
  async close(): Promise<void> {
    this.closed = true;
    const h = this.handle;
    this.handle = null;
    await h?.close();
  }
}
