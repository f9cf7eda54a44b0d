/**
 * Delays this dispatcher set itself (a backoff, a Retry-After), kept so that a forward step of
 * the wall clock cannot cut them short. A delay is a duration: the retry is written to the file
 * as a wall-clock run_at (other processes read that), and remembered here with the monotonic
 * instant at which the duration has really passed. Until then, the "now" this dispatcher claims
 * with stays just below that run_at.
 *
 * Without a wall step both deadlines arrive together and nothing is held back. After a forward
 * step, every task due after the earliest unserved hold waits with it, so the delay is bounded by
 * `maxHoldMs` (default: the backoff cap), and holds vanish when the dispatcher stops.
 */
import type { MonotonicClock } from '../clock.ts';

interface Hold {
  taskId: number;
  runAt: number;
  dueMono: number;
}

export class DelayHolds {
  private readonly current = new Map<number, Hold>();
  /** claims are held back behind a delay (said once per episode) */
  private holding = false;
  /** min-heap by runAt; entries not in `current` any more are dropped when they reach the top */
  private readonly heap: Hold[] = [];
  private readonly mono: MonotonicClock;
  private readonly maxHoldMs: number;

  constructor(mono: MonotonicClock, maxHoldMs: number) {
    this.mono = mono;
    this.maxHoldMs = maxHoldMs;
  }

  /** Task `taskId` was rescheduled to `runAt`, `delayMs` from now. */
  add(taskId: number, runAt: number, delayMs: number): void {
    if (!(delayMs > 0)) return this.remove(taskId);
    const hold = { taskId, runAt, dueMono: this.mono.now() + Math.min(delayMs, this.maxHoldMs) };
    this.current.set(taskId, hold);
    this.push(hold);
  }

  /** The task was claimed, or the reschedule was not written. */
  remove(taskId: number): void {
    this.current.delete(taskId);
  }

  /** The time to claim with: the wall clock, but never at or past an unserved hold's run_at. */
  dueNow(wall: number): number {
    const top = this.top();
    return top === null ? wall : Math.min(wall, top.runAt - 1);
  }

  /** How long until `at` (wall) may be claimed, counting the hold that keeps it back, if any. */
  /** dueNow, saying once per episode that a hold keeps the claims back (the wall clock stepped). */
  dueNowSaying(wall: number, warn: (line: string) => void): number {
    const now = this.dueNow(wall);
    // A few ms of hold are clock-rate noise; a second or more is a step.
    const holding = wall - now >= 1000;
    if (holding && !this.holding) {
      warn(
        `the wall clock is ${wall - now} ms past a retry this worker delayed (did the clock step ` +
          'forward?); later tasks wait until that delay has really passed',
      );
    }
    this.holding = holding;
    return now;
  }

  msUntil(at: number, wall: number): number {
    const top = this.top();
    let ms = at - wall;
    if (top !== null && at >= top.runAt) ms = Math.max(ms, top.dueMono - this.mono.now());
    return Math.max(0, ms);
  }

  /** The earliest unserved hold (popping served and stale ones). */
  private top(): Hold | null {
    const now = this.mono.now();
    for (;;) {
      const h = this.heap[0];
      if (h === undefined) return null;
      if (this.current.get(h.taskId) === h && h.dueMono > now) return h;
      if (this.current.get(h.taskId) === h) this.current.delete(h.taskId);
      this.pop();
    }
  }

  private push(h: Hold): void {
    const a = this.heap;
    a.push(h);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]!.runAt <= a[i]!.runAt) break;
      [a[p], a[i]] = [a[i]!, a[p]!];
      i = p;
    }
  }

  private pop(): void {
    const a = this.heap;
    const last = a.pop()!;
    if (a.length === 0) return;
    a[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && a[l]!.runAt < a[m]!.runAt) m = l;
      if (r < a.length && a[r]!.runAt < a[m]!.runAt) m = r;
      if (m === i) return;
      [a[m], a[i]] = [a[i]!, a[m]!];
      i = m;
    }
  }
}
