/**
 * Handlers' progress reports, written at most every 250 ms in one call for every task (a
 * handler may report thousands of times a second; the UI shows a bar, not each step).
 */
import type { Logger } from '../logger.ts';
import type { TaskStore, WorkerIdentity } from '../store/task-store.ts';

const FLUSH_MS = 250;

export class ProgressWriter {
  private pending = new Map<number, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  private readonly store: TaskStore;
  private readonly worker: WorkerIdentity;
  private readonly logger: Logger;
  private readonly onChange: (ids: number[]) => void;

  constructor(store: TaskStore, worker: WorkerIdentity, logger: Logger, onChange: (ids: number[]) => void) {
    this.store = store;
    this.worker = worker;
    this.logger = logger;
    this.onChange = onChange;
  }

  note(id: number, fraction: number): void {
    if (!Number.isFinite(fraction)) return;
    this.pending.set(id, Math.min(1, Math.max(0, fraction)));
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, FLUSH_MS);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const updates = this.pending;
    this.pending = new Map();
    try {
      await this.store.setProgress(updates, this.worker);
      this.onChange([...updates.keys()]);
    } catch (err) {
      this.logger.warn(`progress not saved: ${String(err)}`);
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
