/**
 * Group commit's wait for the disk: one fdatasync of the -wal file makes every commit written to
 * it before the call durable (the log is one sequence), as synchronous=FULL would have at each of
 * them. It runs on libuv's thread pool, so the event loop goes on with the next ticks meanwhile.
 * A missing -wal file holds nothing unsynced: SQLite removes it only after checkpointing it
 * into the database file, with a sync.
 *
 * (fs.promises, read when first needed: loading it brings readline and the file watchers, which a
 * store without group commit never uses.)
 */
import fs from 'node:fs';

export async function syncWal(file: string): Promise<void> {
  let handle;
  try {
    handle = await fs.promises.open(`${file}-wal`, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}
