/**
 * What a settled handler leaves to write: the Finish of its attempt, decided by the outcome
 * policy. Any value a handler throws or rejects with is a failure, `null` and `undefined`
 * included; only a return is a success (SUCCESS).
 */
import { BOUNDS, boundResult, truncateHead } from '../bounded.ts';
import { PermanentError, RetryAfterError, TaskCancelledError, TaskTimeoutError } from '../errors.ts';
import { decideAfterFailure, type Failure } from '../policy/outcome.ts';
import type { ClaimedTask, Finish } from '../store/task-store.ts';
import type { DispatchConfig } from '../engine/config.ts';

/** What a handler's settle passes for "returned". */
export const SUCCESS = Symbol('success');

/**
 * The Finish for `claim`: `err` is what the handler threw (or SUCCESS), `reason` why it was
 * aborted (or null).
 */
export function finishOf(
  claim: ClaimedTask,
  output: string | null,
  outcome: { err: unknown; reason: unknown; result?: unknown; groupHoldMs?: number; pausedMs?: number },
  now: number,
  config: Pick<DispatchConfig, 'backoff' | 'random'>,
): Finish {
  const { task, historyId } = claim;
  const { err, reason } = outcome;
  const paused = outcome.pausedMs ? { pausedMs: Math.round(outcome.pausedMs) } : {};
  const base = { taskId: task.id, attempt: task.attempts, historyId, output, ...paused };
  const hold = outcome.groupHoldMs === undefined ? {} : { blockGroupUntil: now + outcome.groupHoldMs };
  if (err === SUCCESS && reason === null)
    return { ...base, status: 'done', result: boundResult(outcome.result), ...hold };
  const failure: Failure =
    reason instanceof TaskCancelledError
      ? { type: 'cancelled' }
      : reason instanceof TaskTimeoutError
        ? { type: 'timeout' }
        : {
            type: 'error',
            permanent: err instanceof PermanentError,
            retryAfterMs: err instanceof RetryAfterError ? err.ms : null,
          };
  const decision = decideAfterFailure(task, failure, now, config.backoff, config.random);
  const guessed = decision.outcome === 'retry-after' && err instanceof RetryAfterError && err.guessed;
  const message = reason instanceof Error && failure.type !== 'error' ? reason.message : describe(err);
  return {
    ...hold,
    ...base,
    ...decision,
    ...(guessed ? { waitGuessed: true } : {}),
    ...(err instanceof RetryAfterError ? { throttled: true } : {}),
    error: truncateHead(message, BOUNDS.errorChars),
  };
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (err === null || err === undefined) return `the handler threw ${String(err)} (no error given)`;
  return String(err);
}
