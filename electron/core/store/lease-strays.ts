import type { StrayClaim } from './task-store.ts';

/**
 * The tasks a worker holds without running them: leased to it, not among the ids it runs, and
 * claimed at least a lease ago (a younger one may belong to a claim still on its way back to
 * it). Both stores judge them alike in their renewal.
 */
export function straysOf(
  held: readonly { id: number; started_at: number | null; attempt_id: number | null }[],
  runningIds: readonly number[],
  claimedBefore: number,
): StrayClaim[] {
  const running = new Set(runningIds);
  const out: StrayClaim[] = [];
  for (const r of held)
    if (!running.has(r.id) && r.started_at !== null && r.started_at <= claimedBefore)
      out.push({ id: r.id, attemptId: r.attempt_id });
  return out;
}

/**
 * A task's open attempt, the history id its claim opened (StrayClaim.attemptId), as SQL both
 * stores run; `task` is the SQL of the task's id. Null when it has none.
 */
export const openAttemptOf = (task: string): string =>
  `(SELECT max(h.id) FROM history h WHERE h.task_id = ${task} AND h.type = 'attempt' AND h.outcome = 'running')`;
