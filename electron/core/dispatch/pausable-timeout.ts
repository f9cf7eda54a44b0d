/**
 * A task's timeout that a machine gate's pause suspends: the time paused is not the task's to
 * count. Measured on the monotonic clock, as every wait this process times itself.
 */
import type { MonotonicClock } from '../clock.ts';

export class PausableTimeout {
  private readonly fire: () => void;
  private readonly mono: MonotonicClock;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private left: number;
  private startedAt = 0;

  constructor(ms: number, fire: () => void, mono: MonotonicClock) {
    this.fire = fire;
    this.mono = mono;
    this.left = ms;
    this.resume();
  }

  pause(): void {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.left = Math.max(0, this.left - (this.mono.now() - this.startedAt));
  }

  resume(): void {
    if (this.timer !== null || this.left === Infinity) return;
    this.startedAt = this.mono.now();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.left = Infinity;
      this.fire();
    }, this.left);
  }

  clear(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.left = Infinity;
  }
}
