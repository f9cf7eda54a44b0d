/**
 * Which of the tasks a filter matched an action by filter touches: the single-task rules of
 * task-rules.ts, applied to each (a task the action does not apply to is passed over, not an
 * error, since a filter cannot name only the right ones), a failure group's cause, the unique
 * keys held again, and the cap the user confirmed. Pure, so both stores pick the same tasks.
 */
import { failureCause, failureKey } from '../../../shared/failure-cause.ts';
import { TASK_STATUSES, type TaskStatus } from '../../../shared/domain.ts';
import type { BulkAction } from '../../../shared/task-filter.ts';
import { TRANSITIONS } from '../../../shared/transitions.ts';
import { cancelVerdict, removeRefusal, retryVerdict, RETRYABLE_STATUSES } from './task-rules.ts';

/** A matched task as the store read it (locked, on a store that locks rows). */
export interface BulkCandidate {
  id: number;
  status: TaskStatus;
  attempts: number;
  kind: string;
  error: string | null;
  unique_key: string | null;
}

/** The statuses an action can touch: a store may narrow its read to them (the rules decide). */
export const BULK_STATUSES: Readonly<Record<BulkAction, readonly TaskStatus[]>> = {
  retry: RETRYABLE_STATUSES,
  cancel: TRANSITIONS.cancel.from,
  remove: TASK_STATUSES.filter((s) => removeRefusal(0, s) === null),
};

export interface BulkPick<T extends BulkCandidate> {
  /** retried, cancelled at once, or deleted */
  act: T[];
  /** running: their worker is asked to stop them (cancel) */
  stop: T[];
}

/**
 * Picks in the order given (the store reads by id), until `max` are picked. `keyHolder` answers
 * who else holds a task's unique key in the store; a key retried earlier in this pick counts as
 * held too, so of two failed tasks sharing a key only the first comes back.
 */
export function pickBulk<T extends BulkCandidate>(
  action: BulkAction,
  rows: Iterable<T>,
  opts: { cause?: string | undefined; max: number; keyHolder(row: T): number | null },
): BulkPick<T> {
  const out: BulkPick<T> = { act: [], stop: [] };
  const taken = new Set<string>();
  for (const row of rows) {
    if (out.act.length + out.stop.length >= opts.max) break;
    if (opts.cause !== undefined && failureKey(row.kind, failureCause(row.error)) !== opts.cause) continue;
    if (action === 'retry') {
      if (retryVerdict(row.id, row.status).action !== 'retry') continue;
      const key = row.unique_key;
      if (key !== null && (taken.has(key) || opts.keyHolder(row) !== null)) continue;
      if (key !== null) taken.add(key);
      out.act.push(row);
    } else if (action === 'cancel') {
      const v = cancelVerdict(row.status).action;
      if (v === 'cancel') out.act.push(row);
      else if (v === 'request-stop') out.stop.push(row);
    } else if (removeRefusal(row.id, row.status) === null) out.act.push(row);
  }
  return out;
}
