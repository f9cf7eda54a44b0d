/**
 * Decides, for the reaper, when another owner's running tasks may go back to the queue on this
 * machine, so that a task never runs twice at once:
 * - the owner's process is gone: first every process its shell tasks started (found by their
 *   attempt tag, setsid'ed ones included) is stopped and confirmed gone; until then the tasks
 *   stay `running`, so their slots stay taken;
 * - the owner stopped renewing but its process still runs here (a handler blocking its event
 *   loop, a stopped process): nothing is reclaimed until it ends, since whatever it runs may
 *   still be running;
 * - an owner on another machine is judged by its lease alone, as nothing of it can be seen here.
 */
import type { Logger } from '../logger.ts';
import type { LeaseHolder } from '../store/task-store.ts';

export interface OrphanReaperOptions {
  host: string;
  logger: Logger;
  /** SIGTERM to SIGKILL */
  graceMs: number;
  /** whether the owner's process still runs on this machine */
  stillRuns: (owner: LeaseHolder) => boolean;
  /** pids of processes left by the owner's tasks */
  find: (ownerId: string) => number[];
  /** stops them; true once none is left */
  stop: (ownerId: string, graceMs: number) => Promise<boolean>;
  /** called when a stop ended, so the reaper looks again at once */
  onStopped: () => void;
}

export class OrphanReaper {
  private readonly o: OrphanReaperOptions;
  private readonly stopping = new Set<string>();
  private readonly told = new Set<string>();

  constructor(options: OrphanReaperOptions) {
    this.o = options;
  }

  /** Whether `owner`'s tasks may be reclaimed now, given what the lease says of it. */
  mayReclaim(owner: LeaseHolder, dead: boolean, stalled: boolean): boolean {
    if (!dead && !stalled) return false;
    if (owner.host !== this.o.host) return dead || stalled;
    if (!dead && this.o.stillRuns(owner)) {
      this.once(
        `held:${owner.id}`,
        `worker ${owner.id} stopped renewing its lease but its process (pid ${owner.pid}) still runs on this ` +
          'machine (a handler blocking its event loop, or a stopped process?): its tasks stay held until it ends',
      );
      return false;
    }
    if (this.stopping.has(owner.id)) return false;
    const pids = this.o.find(owner.id);
    if (pids.length === 0) return true;
    this.once(
      `stop:${owner.id}`,
      `worker ${owner.id} is gone but left ${pids.length} process(es) of its tasks running ` +
        `(pid ${pids.slice(0, 10).join(', ')}): stopping them before those tasks run again`,
    );
    this.stopping.add(owner.id);
    void this.o
      .stop(owner.id, this.o.graceMs)
      .catch(() => false)
      .then((gone) => {
        if (!gone)
          this.o.logger.warn(`processes left by worker ${owner.id} survive SIGKILL; its tasks stay held`);
        this.stopping.delete(owner.id);
        this.o.onStopped();
      });
    return false;
  }

  private once(key: string, line: string): void {
    if (this.told.has(key)) return;
    this.told.add(key);
    this.o.logger.warn(line);
  }
}
