/**
 * Retry, cancel or delete every task a filter matches, on the server, not only the rows this
 * screen loaded: a dry run counts what the action would touch now, the confirm names that count,
 * and the action is capped at it and at the last id it counted, so tasks that began to match
 * meanwhile are not touched unasked. The notice says what the server answered it did.
 */
import { useCallback } from 'react';
import type { ApiInput } from '../../shared/api.ts';
import { LIMITS } from '../../shared/limits.ts';
import type { BulkAction } from '../../shared/task-filter.ts';
import { useApi } from './api-context.tsx';
import { useConfirm } from './confirm.tsx';
import { formatCount, plural } from './format.ts';
import { useNotices } from './notices.tsx';

export type MatchFilter = ApiInput<'actOnMatching'>['filter'];

export interface MatchScope {
  /** how the tasks are described in the question: "matching these filters", "with “exit 7 · …”" */
  describe: string;
  /** how many the screen says match (the Tasks list's total), to name the ones passed over */
  matching?: number;
}

const VERB: Record<BulkAction, { ask: string; label: string; passed: string }> = {
  retry: { ask: 'Retry', label: 'Retry', passed: 'pending, running or done' },
  cancel: { ask: 'Cancel', label: 'Cancel', passed: 'already finished' },
  remove: { ask: 'Delete', label: 'Delete', passed: 'running (cancel them first)' },
};

function outcome(action: BulkAction, out: { count: number; stopping: number }): string {
  if (action === 'retry') return `${plural(out.count, 'task')} back in the queue`;
  if (action === 'remove') return `${plural(out.count, 'task')} deleted`;
  const parts = [];
  if (out.count) parts.push(`${plural(out.count, 'task')} cancelled`);
  if (out.stopping)
    parts.push(`${plural(out.stopping, 'running task')} ${out.stopping === 1 ? 'is' : 'are'} being stopped`);
  return parts.join('; ') || 'Nothing to cancel: the tasks had finished meanwhile';
}

/** Resolves to true once the server acted (false: nothing to do, declined, or failed). */
export function useMatchingActions(): (
  action: BulkAction,
  filter: MatchFilter,
  scope: MatchScope,
) => Promise<boolean> {
  const api = useApi();
  const ask = useConfirm();
  const { notify } = useNotices();
  return useCallback(
    async (action, filter, scope) => {
      const verb = VERB[action];
      try {
        const dry = await api.actOnMatching({ action, filter, max: LIMITS.bulk, dryRun: true });
        const n = dry.count + dry.stopping;
        if (n === 0) {
          notify(`Nothing to ${verb.label.toLowerCase()}: no task ${scope.describe} can be.`);
          return false;
        }
        const passed = scope.matching !== undefined ? scope.matching - n : 0;
        const detail = [
          action === 'remove' ? 'This cannot be undone.' : '',
          dry.stopping ? `${plural(dry.stopping, 'running task')} will be stopped by their workers.` : '',
          passed > 0
            ? `${plural(passed, 'other matching task')} ${passed === 1 ? 'is' : 'are'} ${verb.passed} and stay as they are.`
            : '',
          n >= LIMITS.bulk ? `At most ${formatCount(LIMITS.bulk)} at a time; run it again for the rest.` : '',
        ]
          .filter(Boolean)
          .join(' ');
        const ok = await ask({
          question: `${verb.ask} ${plural(n, 'task')} ${scope.describe}?`,
          ...(detail ? { detail } : {}),
          confirmLabel: `${verb.label} ${plural(n, 'task')}`,
          danger: action !== 'retry',
        });
        if (!ok) return false;
        // Capped at the count and at the last id counted: the same tasks, not merely as many.
        const out = await api.actOnMatching({
          action,
          filter,
          max: n,
          ...(dry.lastId !== null ? { throughId: dry.lastId } : {}),
        });
        notify(outcome(action, out), action === 'retry' ? 'amber' : 'grey');
        return true;
      } catch (err) {
        notify(
          `Could not ${verb.label.toLowerCase()}: ${err instanceof Error ? err.message : String(err)}`,
          'red',
        );
        return false;
      }
    },
    [api, ask, notify],
  );
}
