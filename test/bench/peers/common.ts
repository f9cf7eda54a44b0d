/** Pieces every peer's trials share. */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { percentile } from '../stats.ts';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The pause before each latency sample: uniform over 1-21 ms, so enqueues land at random points
 * of a 20 ms poll cycle instead of just after the previous claim (which would make every system
 * that polls look up to a whole interval slower than it is).
 */
export const sampleGap = () => sleep(1 + Math.random() * 20);

export const LATENCY_WARMUP = 50;

/** BullMQ's Worker concurrency in the drain (50 to 200 all ran alike on this machine). */
export const BULLMQ_CONCURRENCY = 100;

/** The round's percentiles, and its samples so the parent can pool the rounds. */
export function latencySummary(samples: readonly number[]) {
  return {
    samples: [...samples],
    p50: percentile(samples, 0.5)!,
    p99: percentile(samples, 0.99)!,
    max: Math.max(...samples),
  };
}

export function rate(count: number, ms: number): number {
  return count / (ms / 1000);
}

/** Collects garbage left by set-up so it is not collected inside the measured part. */
export function settleHeap(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Peak RSS so far, and the JS heap still in use after a full GC (what is retained, not transient). */
export function memoryFigures(): { peakRssMb: number; heapAfterGcMb: number } {
  // maxRSS is in kilobytes
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  settleHeap();
  return { peakRssMb, heapAfterGcMb: process.memoryUsage().heapUsed / 2 ** 20 };
}

/**
 * A second process that enqueues one latency probe each time it is told to, for the
 * "enqueue made by another process" figures. Resolves once it is ready.
 */
export async function startEnqueuer(role: string, args: object): Promise<Enqueuer> {
  const child = fork(path.join(import.meta.dirname, '..', 'worker-child.ts'), [role, JSON.stringify(args)], {
    execArgv: ['--no-warnings'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`enqueuer ${role} exited with ${code}`)));
  });
  return new Enqueuer(child);
}

export class Enqueuer {
  private readonly child: ChildProcess;
  constructor(child: ChildProcess) {
    this.child = child;
  }

  /** Asks for one probe; resolves when the other process's enqueue call has returned. */
  send(): Promise<void> {
    return new Promise((resolve) => {
      this.child.once('message', () => resolve());
      this.child.send('go');
    });
  }

  async stop(): Promise<void> {
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.send('stop');
    await exited;
  }
}

/** The enqueuer's side: call `probe` on each 'go', report back, exit on 'stop'. */
export function serveEnqueuer(probe: () => Promise<void> | void, close: () => Promise<void> | void): void {
  process.on('message', (msg) => {
    if (msg === 'stop') {
      void Promise.resolve(close()).then(() => process.exit(0));
      return;
    }
    void Promise.resolve(probe()).then(() => process.send!('sent'));
  });
  process.send!('ready');
}
