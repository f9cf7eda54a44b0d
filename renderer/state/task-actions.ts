/**
 * Retry, cancel and delete for one task or many: each asks first (naming what it touches, per
 * DESIGN-UI), calls the API with only the tasks the action applies to, and reports what it did.
 */
import { useCallback } from 'react';
import type { Task, TaskStatus } from '../../shared/domain.ts';
import { canTransition } from '../../shared/transitions.ts';
import { useApi } from './api-context.tsx';
import { useConfirm } from './confirm.tsx';
import { plural } from './format.ts';
import { useNotices } from './notices.tsx';

type Brief = Pick<Task, 'id' | 'status' | 'name'>;

export const canRetry = (s: TaskStatus) => canTransition('retryByUser', s);
export const canCancel = (s: TaskStatus) => canTransition('cancel', s);
export const canDelete = (s: TaskStatus) => s !== 'running';

function subject(tasks: readonly Brief[]): string {
  if (tasks.length === 1) return `task ${tasks[0]!.id} “${tasks[0]!.name}”`;
  const statuses = new Set(tasks.map((t) => t.status));
  return plural(tasks.length, statuses.size === 1 ? `${[...statuses][0]} task` : 'task');
}

function skipped(all: number, used: number, why: string): string | undefined {
  const left = all - used;
  return left > 0
    ? `${plural(left, 'other selected task')} ${left === 1 ? 'is' : 'are'} ${why} and stay as they are.`
    : undefined;
}

/** What a cancel did, naming only what happened: "1 running task stopping", not "0 tasks cancelled, …". */
export function cancelNotice(out: { cancelled: readonly number[]; requested: readonly number[] }): string {
  const parts: string[] = [];
  if (out.cancelled.length) parts.push(`${plural(out.cancelled.length, 'task')} cancelled`);
  if (out.requested.length)
    parts.push(
      `${plural(out.requested.length, 'running task')} ${out.requested.length === 1 ? 'is' : 'are'} being stopped`,
    );
  return parts.length ? parts.join('; ') : 'Nothing to cancel: the tasks had finished meanwhile';
}

export interface TaskActions {
  /** `question` replaces the generic one when the caller can say more ("… with error X?") */
  retry(tasks: readonly Brief[], options?: { question?: string }): Promise<number[] | null>;
  /** every failed task (of one group or kind, if given); `count` is what the screen shows */
  retryAllFailed(count: number, filter?: { group?: string; kind?: string }): Promise<number[] | null>;
  cancel(tasks: readonly Brief[]): Promise<number[] | null>;
  remove(tasks: readonly Brief[], options?: { question?: string }): Promise<number[] | null>;
}

export function useTaskActions(): TaskActions {
  const api = useApi();
  const ask = useConfirm();
  const { notify } = useNotices();

  const fail = useCallback(
    (what: string, err: unknown) => {
      notify(`Could not ${what}: ${err instanceof Error ? err.message : String(err)}`, 'red');
      return null;
    },
    [notify],
  );

  const retry = useCallback<TaskActions['retry']>(
    async (tasks, { question } = {}) => {
      const targets = tasks.filter((t) => canRetry(t.status));
      if (targets.length === 0) {
        notify('Nothing to retry: only failed, cancelled or retrying tasks can be retried.');
        return null;
      }
      if (
        !(await ask({
          question: question ?? `Retry ${subject(targets)}?`,
          detail: skipped(tasks.length, targets.length, 'pending, running or done'),
          confirmLabel: `Retry ${targets.length === 1 ? 'task' : plural(targets.length, 'task')}`,
        }))
      )
        return null;
      try {
        const { ids } = await api.retry({ ids: targets.map((t) => t.id) });
        notify(`${plural(ids.length, 'task')} back in the queue`, 'amber');
        return ids;
      } catch (err) {
        return fail('retry', err);
      }
    },
    [api, ask, notify, fail],
  );

  const retryAllFailed = useCallback<TaskActions['retryAllFailed']>(
    async (count, filter = {}) => {
      const where = [filter.kind && `of kind ${filter.kind}`, filter.group && `in group ${filter.group}`]
        .filter(Boolean)
        .join(' ');
      const ok = await ask({
        question: `Retry all ${plural(count, 'failed task')}${where ? ` ${where}` : ''}?`,
        detail: 'Each gets a fresh set of attempts and waits for a free slot.',
        confirmLabel: 'Retry all',
      });
      if (!ok) return null;
      try {
        const { ids } = await api.retryFailed(filter);
        notify(`${plural(ids.length, 'task')} back in the queue`, 'amber');
        return ids;
      } catch (err) {
        return fail('retry', err);
      }
    },
    [api, ask, notify, fail],
  );

  const cancel = useCallback<TaskActions['cancel']>(
    async (tasks) => {
      const targets = tasks.filter((t) => canCancel(t.status));
      if (targets.length === 0) {
        notify('Nothing to cancel: those tasks have ended.');
        return null;
      }
      const running = targets.filter((t) => t.status === 'running').length;
      const ok = await ask({
        question: `Cancel ${subject(targets)}?`,
        detail:
          [
            running
              ? `${plural(running, 'running task')} will be stopped by ${running === 1 ? 'its' : 'their'} worker.`
              : '',
            skipped(tasks.length, targets.length, 'already finished') ?? '',
          ]
            .filter(Boolean)
            .join(' ') || undefined,
        confirmLabel: `Cancel ${targets.length === 1 ? 'task' : plural(targets.length, 'task')}`,
        danger: true,
      });
      if (!ok) return null;
      try {
        const out = await api.cancel({ ids: targets.map((t) => t.id) });
        notify(cancelNotice(out), 'grey');
        return [...out.cancelled, ...out.requested];
      } catch (err) {
        return fail('cancel', err);
      }
    },
    [api, ask, notify, fail],
  );

  const remove = useCallback<TaskActions['remove']>(
    async (tasks, { question } = {}) => {
      const targets = tasks.filter((t) => canDelete(t.status));
      if (targets.length === 0) {
        notify('Nothing to delete: running tasks must be cancelled first.');
        return null;
      }
      const ok = await ask({
        question:
          question ?? `Delete ${subject(targets)} and ${targets.length === 1 ? 'its' : 'their'} history?`,
        detail: [
          'This cannot be undone.',
          skipped(tasks.length, targets.length, 'running (cancel them first)') ?? '',
        ]
          .filter(Boolean)
          .join(' '),
        confirmLabel: `Delete ${targets.length === 1 ? 'task' : plural(targets.length, 'task')}`,
        danger: true,
      });
      if (!ok) return null;
      try {
        const { ids } = await api.remove({ ids: targets.map((t) => t.id) });
        notify(`${plural(ids.length, 'task')} deleted`, 'grey');
        return ids;
      } catch (err) {
        return fail('delete', err);
      }
    },
    [api, ask, notify, fail],
  );

  return { retry, retryAllFailed, cancel, remove };
}
