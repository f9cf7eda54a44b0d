/**
 * Group commit: ticks write their results without waiting for the disk, and each result is
 * reported only after a sync of the store that began after its commit (TaskStore.syncResults).
 * One sync runs at a time; the results committed while it runs wait for the next one, which
 * starts as soon as it ends. So the wait is bounded by two syncs, however fast ticks come, and
 * one sync is shared by every tick committed during the previous one.
 *
 * A sync that fails (a disk error) reports nothing: the results are in the file, but perhaps not
 * on the disk. It is tried again after RETRY_MS until one succeeds.
 */
const RETRY_MS = 1000;

export class GroupCommit {
  private readonly sync: () => Promise<void>;
  private readonly failed: (err: unknown) => void;
  private readonly succeeded: () => void;
  /** reports of commits made since the sync under way began */
  private waiting: (() => void)[] = [];
  private syncing = false;
  private drained: ((all: boolean) => void)[] = [];

  /** `failed` is told of each failed sync; `succeeded` of a sync after failures. */
  constructor(sync: () => Promise<void>, failed: (err: unknown) => void, succeeded: () => void) {
    this.sync = sync;
    this.failed = failed;
    this.succeeded = succeeded;
  }

  /** Calls `report` once what was committed before this call is on the disk. */
  after(report: () => void): void {
    this.waiting.push(report);
    if (!this.syncing) this.start();
  }

  /** Whether some report still waits for its sync. */
  get pending(): boolean {
    return this.syncing || this.waiting.length > 0;
  }

  /**
   * Resolves true once every report given so far was made, or false at the first failed sync
   * meanwhile (a stopping worker does not wait for a failing disk; the retries go on).
   */
  flush(): Promise<boolean> {
    if (!this.pending) return Promise.resolve(true);
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private settleFlushes(all: boolean): void {
    const drained = this.drained;
    this.drained = [];
    for (const d of drained) d(all);
  }

  private start(): void {
    const batch = this.waiting;
    this.waiting = [];
    this.syncing = true;
    this.sync().then(
      () => {
        this.succeeded();
        // Not pending any more while its reports run (they may look: whenIdle).
        this.syncing = false;
        for (const report of batch) report();
        this.next();
      },
      (err: unknown) => {
        this.failed(err);
        this.waiting = batch.concat(this.waiting);
        this.settleFlushes(false);
        setTimeout(() => {
          this.syncing = false;
          this.next();
        }, RETRY_MS).unref();
      },
    );
  }

  private next(): void {
    if (this.syncing) return; // a report started the next one already
    if (this.waiting.length > 0) {
      this.start();
      return;
    }
    this.settleFlushes(true);
  }
}
