/**
 * What the operator and the reaper may do to a task, decided from its status alone, on the edges
 * of shared/transitions.ts. A store executes these decisions (its statements may filter by the
 * status lists exported here); it never decides them itself, so every backend keeps the same rules.
 */
import { FINISHED_STATUSES, type TaskStatus } from '../../../shared/domain.ts';
import { TRANSITIONS, canTransition } from '../../../shared/transitions.ts';

const FINISHED = new Set<TaskStatus>(FINISHED_STATUSES);

/** The statuses a user may retry from (the `retryByUser` edge). */
export const RETRYABLE_STATUSES: readonly TaskStatus[] = TRANSITIONS.retryByUser.from;

/** The statuses a cancel ends at once: the task is waiting, no handler runs it. */
export const CANCEL_NOW_STATUSES: readonly TaskStatus[] = TRANSITIONS.cancel.from.filter(
  (s) => s !== 'running',
);

/** Whether a task in `status` has ended (it carries a finish time; retention may purge it). */
export function isFinished(status: TaskStatus): boolean {
  return FINISHED.has(status);
}

/** "a, b or c" */
function either(list: readonly string[]): string {
  return list.length < 2 ? list.join('') : `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}`;
}

export type RetryVerdict =
  | { action: 'retry' }
  /** already waiting to run: nothing to do, and no error */
  | { action: 'skip' }
  | { action: 'refuse'; reason: string };

/** What a user's retry of task `id` does, given its status. */
export function retryVerdict(id: number, status: TaskStatus): RetryVerdict {
  if (status === TRANSITIONS.retryByUser.to) return { action: 'skip' };
  if (canTransition('retryByUser', status)) return { action: 'retry' };
  return {
    action: 'refuse',
    reason: `task ${id} is ${status}; only ${either(RETRYABLE_STATUSES)} tasks can be retried`,
  };
}

/**
 * Why task `id` cannot be retried: a unique key is held only while its task is unfinished, and
 * task `holder` took it meanwhile. The same words on every backend.
 */
export function heldKeyRefusal(id: number, key: string, holder: number): string {
  return `task ${id} cannot be retried: its unique key "${key}" is held by task ${holder}, which has not finished`;
}

/** Why a task the user cancelled while it waited ended, as recorded on it and in its history. */
export const CANCELLED_BY_USER = 'cancelled by the user';

export type CancelVerdict =
  /** waiting: cancelled now */
  | { action: 'cancel' }
  /**
   * running: its worker is asked to stop the handler and writes `cancelled` once it has
   * stopped, so the slot stays taken until the work really ended
   */
  | { action: 'request-stop' }
  /** finished: nothing to cancel */
  | { action: 'none' };

/** What a user's cancel does to a task in `status`. */
export function cancelVerdict(status: TaskStatus): CancelVerdict {
  if (CANCEL_NOW_STATUSES.includes(status)) return { action: 'cancel' };
  if (canTransition('cancel', status)) return { action: 'request-stop' };
  return { action: 'none' };
}

/** Whether a user may delete a task in `status` (a running one must be cancelled first). */
export function removeRefusal(id: number, status: TaskStatus): string | null {
  return status === 'running' ? `task ${id} is running; cancel it before deleting it` : null;
}

/** How a running task ends when its lease ended without its worker writing a result. */
export interface LeaseEnd {
  status: TaskStatus;
  /** recorded on the task and its open attempt */
  error: string;
  /** the attempt's outcome in the history */
  outcome: 'lost' | 'released';
  /** whether the attempt it was in counts against maxAttempts */
  attemptCounts: boolean;
}

/**
 * A task whose worker stopped renewing its lease (the process ended or hung): the attempt
 * counts, as the handler may have done part of its work, so a task that crashes its worker
 * every time ends failed instead of looping; a cancel asked for meanwhile is honoured. A task
 * reserved for a `semaforo run` (`reserved`) can run in that process only: back in the queue it
 * would wait for a process that is gone, so it ends cancelled, as its waiting reservation would.
 */
export function lostLeaseEnd(
  task: { attempts: number; maxAttempts: number; cancelRequested: boolean; reserved?: boolean },
  owner: string,
): LeaseEnd {
  if (task.cancelRequested)
    return {
      status: 'cancelled',
      error: 'cancelled while its worker was gone',
      outcome: 'lost',
      attemptCounts: true,
    };
  const failed = task.attempts >= task.maxAttempts;
  if (task.reserved && !failed)
    return {
      status: 'cancelled',
      error: `the semaforo run process running it (${owner}) ended or hung; no other process may run it`,
      outcome: 'lost',
      attemptCounts: true,
    };
  return {
    status: failed ? TRANSITIONS.fail.to : TRANSITIONS.requeue.to,
    error: `lease lost: worker ${owner} stopped renewing (process ended or hung)`,
    outcome: 'lost',
    attemptCounts: true,
  };
}

/** A worker shutting down gave its lease back before the handler finished: not counted. */
export const RELEASED_LEASE_END: LeaseEnd = {
  status: TRANSITIONS.requeue.to,
  error: 'worker shut down before it finished; not counted',
  outcome: 'released',
  attemptCounts: false,
};

/**
 * A task reserved for a `semaforo run` process (which runs its command itself) that ended
 * while the task waited: nobody else may run it, so it is cancelled (from CANCEL_NOW_STATUSES).
 */
export function orphanedReservationError(pid: number | null): string {
  return `the semaforo run process that was waiting for it (pid ${pid}) ended`;
}
