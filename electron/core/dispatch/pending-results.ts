/**
 * The results of this dispatcher between a handler's return and the telling of them: finishes
 * waiting for a tick, and, under the opt-in group commit, written ones waiting for their sync
 * (group-commit.ts). The dispatcher is idle when nothing runs and none of them is left.
 */
import type { DispatchConfig } from '../engine/config.ts';
import type { Logger } from '../logger.ts';
import type { Finish, TaskStore } from '../store/task-store.ts';
import { GroupCommit } from './group-commit.ts';

export interface PendingResultsOptions {
  config: Pick<DispatchConfig, 'groupCommit'>;
  store: TaskStore;
  /** a sync failed / succeeded after failures (the dispatcher's write failures) */
  syncFailed: (err: unknown) => void;
  syncSucceeded: () => void;
  /** how many tasks this dispatcher holds (running, or settled and not yet written) */
  running: () => number;
}

export class PendingResults {
  private list: Finish[] = [];
  /** null: the store's ticks wait for the disk themselves */
  private readonly groupCommit: GroupCommit | null;
  private readonly running: () => number;
  private idleWaiters: (() => void)[] = [];

  constructor(o: PendingResultsOptions) {
    this.running = o.running;
    const sync = o.config.groupCommit ? o.store.syncResults?.bind(o.store) : undefined;
    this.groupCommit = sync ? new GroupCommit(sync, o.syncFailed, o.syncSucceeded) : null;
  }

  /** finishes waiting for a tick */
  get length(): number {
    return this.list.length;
  }

  /** Whether ticks write results without waiting for the disk (group commit). */
  get deferSync(): boolean {
    return this.groupCommit !== null;
  }

  /** Resolves when nothing runs here and no result awaits its commit or its sync. */
  whenIdle(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Something ended: resolves the whenIdle() calls if nothing is left. */
  notifyIdle(): void {
    if (!this.idle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private idle(): boolean {
    return this.running() === 0 && this.list.length === 0 && this.groupCommit?.pending !== true;
  }

  add(finish: Finish): void {
    this.list.push(finish);
  }

  /** Every waiting finish, for the tick starting now. */
  take(): Finish[] {
    const finishes = this.list;
    this.list = [];
    return finishes;
  }

  /** A tick failed: its finishes wait again, before any that came meanwhile. */
  putBack(finishes: Finish[]): void {
    this.list = finishes.concat(this.list);
  }

  /** The tick that took `finishes` committed: `tell` of them once they are on the disk. */
  written(finishes: readonly Finish[], tell: (ids: number[]) => void): void {
    if (finishes.length === 0) return;
    const ids = finishes.map((f) => f.taskId);
    const report = () => {
      tell(ids);
      this.notifyIdle();
    };
    if (this.groupCommit) this.groupCommit.after(report);
    else report();
  }

  /**
   * Stopping: writes what finished meanwhile with one more tick (`tick` waits for the one under
   * way first), and waits for its sync; says what could not be done.
   */
  async writeLast(tick: () => Promise<void>, logger: Logger): Promise<void> {
    if (this.list.length) await tick();
    if (this.list.length)
      logger.error(
        `stopping with ${this.list.length} finished result(s) that could not be written: ` +
          'those tasks go back to the queue once this worker is gone, and run again',
      );
    if ((await this.groupCommit?.flush()) === false)
      logger.error('stopping with results written but not yet synced to the disk (the sync failed)');
  }
}
