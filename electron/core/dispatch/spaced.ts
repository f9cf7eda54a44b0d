/**
 * Runs a function at most once per gap: a call within the gap of the last run runs it once when
 * the gap is over (however many calls came meanwhile), so the last call is never dropped.
 */
export class Spaced {
  private last = -Infinity;
  private timer: ReturnType<typeof setTimeout> | null = null;

  private readonly fn: () => void;
  private readonly gapMs: number;
  private readonly now: () => number;

  constructor(fn: () => void, gapMs: number, now: () => number) {
    this.fn = fn;
    this.gapMs = gapMs;
    this.now = now;
  }

  call(): void {
    if (this.timer) return;
    const wait = this.last + this.gapMs - this.now();
    if (wait <= 0) return this.run();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.run();
    }, wait);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private run(): void {
    this.last = this.now();
    this.fn();
  }
}
