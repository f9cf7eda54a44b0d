/**
 * The `bench-probe` kind: a no-op like `sleep` 0 that tells the harness when it starts and ends,
 * for the latency and limit scenarios. The payload may carry `t0`, the wall-clock time
 * (stats.ts wallMs) at which it was enqueued.
 */
import { z } from 'zod';
import { defineHandler } from '../../../electron/core/handlers/registry.ts';
import type { Task } from '../../../shared/domain.ts';
import { wallMs } from '../stats.ts';

export const PROBE_KIND = 'bench-probe';

export interface ProbeHook {
  start?: (at: number, payload: { t0?: number }, task: Task) => void;
  end?: (at: number, startedAt: number, task: Task) => void;
}

let hook: ProbeHook = {};

export function setProbeHook(h: ProbeHook): void {
  hook = h;
}

export const probeHandler = defineHandler({
  kind: PROBE_KIND,
  description: 'benchmark probe: a no-op that reports its start and end',
  payload: z.strictObject({ t0: z.number().optional() }),
  run: async (payload, { task }) => {
    const at = wallMs();
    hook.start?.(at, payload, task);
    // One microtask, so the end is a separate moment after the start, as with real async work.
    await null;
    hook.end?.(wallMs(), at, task);
  },
});
