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
    if (this.closed) return this.syncOnce(); // a retry after the store closed still syncs
    const handle = this.handle ?? (await this.open());
    try {
      await handle?.datasync();
    } catch (err) {
      // The next try opens the file again rather than asking a descriptor that failed.
      if (this.handle === handle) this.handle = null;
      await handle?.close().catch(() => {});
      throw err;
    }
  }

  private async syncOnce(): Promise<void> {
    const handle = await openIfThere(this.wal);
    if (handle === null) return;
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  private async open(): Promise<fs.promises.FileHandle | null> {
    if (this.closed) return null;
    const handle = await openIfThere(this.wal);
    if (handle === null) return null;
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

async function openIfThere(file: string): Promise<fs.promises.FileHandle | null> {
  try {
    return await fs.promises.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
