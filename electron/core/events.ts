/**
 * Coalesces change notifications: however many tasks change, listeners hear at most one batch
 * per `intervalMs` (the faces then fetch a fresh snapshot), so a burst of 50,000 completions is a
 * handful of UI updates, not 50,000.
 */
export interface ChangeBatch {
  /** tasks changed by this process */
  taskIds: number[];
  /** another process changed the file (which tasks is unknown) */
  external: boolean;
}

export type ChangeListener = (batch: ChangeBatch) => void;

export class ChangeCoalescer {
  private ids = new Set<number>();
  private external = false;
  private touched = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** at no interval: the end of this turn, not a timer (Node makes a 0 ms timer wait 1 ms) */
  private immediate: ReturnType<typeof setImmediate> | null = null;
  private lastFlush = 0;
  private readonly listeners = new Set<ChangeListener>();

  private readonly intervalMs: number;
  private readonly maxIds: number;
  constructor(intervalMs: number, maxIds = 1000) {
    this.intervalMs = intervalMs;
    this.maxIds = maxIds;
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Something besides tasks changed here (a schedule, a group): listeners should re-read. */
  touch(): void {
    if (this.listeners.size === 0) return;
    this.touched = true;
    this.arm();
  }

  add(ids: readonly number[], external = false): void {
    if (this.listeners.size === 0) return;
    for (const id of ids) if (this.ids.size < this.maxIds) this.ids.add(id);
    if (external) this.external = true;
    this.arm();
  }

  private arm(): void {
    if (this.timer || this.immediate) return;
    const wait = Math.max(0, this.lastFlush + this.intervalMs - Date.now());
    if (wait === 0) {
      this.immediate = setImmediate(() => this.flush());
      this.immediate.unref();
      return;
    }
    this.timer = setTimeout(() => this.flush(), wait);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
  }

  flush(): void {
    this.disarm();
    if (this.ids.size === 0 && !this.external && !this.touched) return;
    const batch: ChangeBatch = { taskIds: [...this.ids], external: this.external };
    this.ids = new Set();
    this.external = false;
    this.touched = false;
    this.lastFlush = Date.now();
    for (const l of this.listeners) l(batch);
  }

  close(): void {
    this.disarm();
    this.listeners.clear();
  }
}
