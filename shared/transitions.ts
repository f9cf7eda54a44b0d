import type { TaskStatus } from './domain.ts';

/**
 * Every status change a task may make, and why. The store only moves a task along these edges
 * (each UPDATE names the allowed source statuses), so a status can never jump arbitrarily.
 */
export const TRANSITIONS = {
  /** a worker claims it (pending or retrying, due, every limit has room) */
  claim: { from: ['pending', 'retrying'], to: 'running' },
  /** the handler returned */
  complete: { from: ['running'], to: 'done' },
  /** the handler failed and attempts remain: wait out the backoff (or Retry-After) */
  retry: { from: ['running'], to: 'retrying' },
  /** permanent error, out of attempts, or cancelled too late to matter */
  fail: { from: ['running'], to: 'failed' },
  /** the lease expired or its owner died (attempt counted), or a worker released it on shutdown */
  requeue: { from: ['running'], to: 'pending' },
  /** the user cancelled it; a running task gets here once its handler has stopped */
  cancel: { from: ['pending', 'retrying', 'running'], to: 'cancelled' },
  /** the user asked to run it again */
  retryByUser: { from: ['failed', 'cancelled', 'retrying'], to: 'pending' },
} as const satisfies Record<string, { from: readonly TaskStatus[]; to: TaskStatus }>;

export type TransitionName = keyof typeof TRANSITIONS;

export function canTransition(name: TransitionName, from: TaskStatus): boolean {
  return (TRANSITIONS[name].from as readonly TaskStatus[]).includes(from);
}

/** All statuses reachable from `from` in one move. */
export function nextStatuses(from: TaskStatus): TaskStatus[] {
  const out = new Set<TaskStatus>();
  for (const t of Object.values(TRANSITIONS)) {
    if ((t.from as readonly TaskStatus[]).includes(from)) out.add(t.to);
  }
  return [...out];
}
