/**
 * The output tail of running attempts, written at most once a second for every attempt whose
 * output grew, so the dashboard and `semaforo show` can follow a task before it ends. The
 * finish still writes the final tail; this is a view, not a record (written relaxed).
 */
import type { Logger } from '../logger.ts';
import type { TaskStore, WorkerIdentity } from '../store/task-store.ts';
import type { Running } from './running-task.ts';

const FLUSH_MS = 1000;

export class OutputWriter {
  /** attempts whose output grew since the last flush, by history id */
  private dirty = new Map<number, Running>();
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

  /** The running task's handler wrote output (its tail is read at the flush). */
  note(entry: Running): void {
    this.dirty.set(entry.claim.historyId, entry);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, FLUSH_MS);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.dirty.size === 0) return;
    const batch = this.dirty;
    this.dirty = new Map();
    const updates = new Map<number, string>();
    // An attempt that ended meanwhile is skipped by the store: its finish wrote the output.
    for (const [historyId, entry] of batch) {
      const text = entry.output.text();
      if (text !== null && !entry.settled) updates.set(historyId, text);
    }
    if (updates.size === 0) return;
    try {
      await this.store.setLiveOutput(updates, this.worker);
      this.onChange([...batch.values()].map((e) => e.claim.task.id));
    } catch (err) {
      this.logger.warn(`output so far not saved: ${String(err)}`);
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.dirty.clear();
  }
}
