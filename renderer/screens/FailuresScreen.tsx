import type { Task } from '../../shared/domain.ts';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorState } from '../components/ErrorState.tsx';
import { FailureGroupSection } from '../components/FailureGroupSection.tsx';
import { LoadingState } from '../components/LoadingState.tsx';
import { groupFailures, groupTitle, type FailureGroup } from '../state/failure-groups.ts';
import { useMatchingActions } from '../state/matching-actions.ts';
import { useCauseCounts } from '../state/use-cause-counts.ts';
import { formatCount, plural } from '../state/format.ts';
import { arrowFocus } from '../state/keyboard.ts';
import { useTaskActions } from '../state/task-actions.ts';
import { useNow } from '../state/use-now.ts';
import { useQuery } from '../state/use-query.ts';
import { useSelection } from '../state/use-selection.ts';

/** The newest failures are grouped here; older ones beyond this are still counted and retried by "Retry all". */
const SHOWN = 1000;

/** The dead letter: tasks that failed for good, grouped by kind and error, to retry or discard. */
export function FailuresScreen({
  openTask,
  openTaskId,
}: {
  openTask(task: Task): void;
  openTaskId: number | null;
}) {
  const q = useQuery(
    (api) => api.listTasks({ status: ['failed'], sort: 'finishedAt', order: 'desc', limit: SHOWN }),
    [],
  );
  const selection = useSelection();
  const actions = useTaskActions();
  const now = useNow(5000);
  const onMatching = useMatchingActions();
  // Older failures are not loaded: each group's count in the whole queue, for "Retry all N".
  const partial = q.data !== undefined && q.data.total > q.data.tasks.length;
  const counts = useCauseCounts(partial);

  const after = (ids: number[] | null) => {
    if (!ids) return;
    selection.drop(ids);
    q.reload();
  };

  let body;
  if (q.loading) body = <LoadingState label="Loading failures…" />;
  else if (!q.data) body = <ErrorState error={q.error!} what="failures" onRetry={q.reload} />;
  else if (q.data.total === 0)
    body = (
      <EmptyState symbol="✓" title="Nothing failed">
        Tasks that run out of attempts land here, grouped by what went wrong.
      </EmptyState>
    );
  else {
    const groups = groupFailures(q.data.tasks);
    // A group with more failed tasks than loaded acts on all with its cause, by filter.
    const more = (g: FailureGroup) => partial && (counts?.get(g.key) ?? Infinity) > g.tasks.length;
    const allOf = (g: FailureGroup, action: 'retry' | 'remove') => async () => {
      const filter = { status: ['failed' as const], kind: g.kind, cause: g.key };
      const describe = `of kind ${g.kind} that failed with “${groupTitle(g)}”`;
      if (await onMatching(action, filter, { describe })) {
        selection.clear();
        q.reload();
      }
    };
    body = (
      <div className="failure-groups" onKeyDown={arrowFocus}>
        {q.data.total > q.data.tasks.length && (
          <p className="muted">
            Showing the newest {formatCount(q.data.tasks.length)} of {formatCount(q.data.total)} failed tasks;
            “Retry all” retries every one, and a group’s buttons act on every failed task with its error.
          </p>
        )}
        {groups.map((g) => (
          <FailureGroupSection
            key={g.key}
            group={g}
            selection={selection}
            openTaskId={openTaskId}
            now={now}
            onOpen={openTask}
            onRetry={async (tasks) =>
              after(
                await actions.retry(tasks, {
                  question: `Retry ${plural(tasks.length, `failed ${g.kind} task`)} with “${groupTitle(g)}”?`,
                }),
              )
            }
            {...(more(g)
              ? {
                  onAll: { retry: allOf(g, 'retry'), discard: allOf(g, 'remove'), count: counts?.get(g.key) },
                }
              : {})}
            onDiscard={async (tasks) =>
              after(
                await actions.remove(tasks, {
                  question: `Discard ${plural(tasks.length, `failed ${g.kind} task`)} with “${groupTitle(g)}”?`,
                }),
              )
            }
          />
        ))}
      </div>
    );
  }

  const total = q.data?.total ?? 0;
  return (
    <div className="screen failures-screen">
      <header className="screen-head">
        <h1>Failures</h1>
        {q.data && <span className="muted">{plural(total, 'failed task')}</span>}
        <div className="push-right button-row">
          {selection.size > 0 && (
            <>
              <span className="muted">{plural(selection.size, 'task')} selected</span>
              <button type="button" onClick={async () => after(await actions.retry(selection.tasks()))}>
                <span aria-hidden="true">↻</span> Retry selected
              </button>
              <button
                type="button"
                className="danger"
                onClick={async () =>
                  after(
                    await actions.remove(selection.tasks(), {
                      question: `Discard ${plural(selection.size, 'failed task')} and their history?`,
                    }),
                  )
                }
              >
                <span aria-hidden="true">⌫</span> Discard selected
              </button>
            </>
          )}
          {total > 0 && (
            <button
              type="button"
              className="primary"
              onClick={async () => after(await actions.retryAllFailed(total))}
            >
              <span aria-hidden="true">↻</span> Retry all {formatCount(total)}
            </button>
          )}
        </div>
      </header>
      {q.error && q.data && (
        <p className="banner tone-red" role="alert">
          Showing older rows: {q.error.message}
        </p>
      )}
      {body}
    </div>
  );
}
