/**
 * When the dispatcher ticks: at most one tick at a time, many wakes in one event-loop turn
 * coalesced into one, a wake during a tick running one more right after it, and one timer for
 * the next time something comes due.
 */
export class TickLoop {
  private readonly run: () => Promise<void>;
  private readonly enabled: () => boolean;
  private scheduled = false;
  /** the tick under way, if any: a wake meanwhile runs one more after it */
  private ticking: Promise<void> | null = null;
  private again = false;
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** `run` is one tick; `enabled` says whether wakes may start ticks now. */
  constructor(run: () => Promise<void>, enabled: () => boolean) {
    this.run = run;
    this.enabled = enabled;
  }

  /** Run a tick soon (coalesced: many wakes in one turn make one transaction). */
  wake(): void {
    if (this.scheduled || !this.enabled()) return;
    this.scheduled = true;
    setImmediate(() => void this.tick());
  }

  /** Wake in `delay` ms (replacing the timer set before). */
  wakeIn(delay: number): void {
    if (this.timer) clearTimeout(this.timer);
    // Node fires a timer longer than 2^31-1 ms (~24.8 days) after 1 ms: clamped.
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.wake();
      },
      Math.min(delay, 2 ** 31 - 1),
    );
    this.timer.unref();
  }

  /** The tick under way, if any. */
  get current(): Promise<void> | null {
    return this.ticking;
  }

  /** One tick at a time: a tick asked for while one is under way runs right after it. */
  tick(): Promise<void> {
    this.scheduled = false;
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    const t = this.run().finally(() => {
      this.ticking = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
    this.ticking = t;
    return t;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
