import { useEffect, useRef } from 'react';
import { ApiError } from '../../shared/api-client.ts';
import type { Task, TaskWithHistory } from '../../shared/domain.ts';
import { ErrorState } from '../components/ErrorState.tsx';
import { HistoryList } from '../components/HistoryList.tsx';
import { JsonBlock } from '../components/JsonBlock.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { ProgressBar } from '../components/ProgressBar.tsx';
import { remainingMs, shellCommandLine } from '../../shared/attempt-view.ts';
import { LoadingState } from '../components/LoadingState.tsx';
import { PriorityPicker } from '../components/PriorityPicker.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { restoreFocus } from '../state/focus.ts';
import { humanDuration } from '../state/format.ts';
import { canCancel, canDelete, canRetry, useTaskActions } from '../state/task-actions.ts';
import { useNow } from '../state/use-now.ts';
import { useStats } from '../state/stats.tsx';
import { afterWaiting, whyWaiting } from '../../shared/why-waiting.ts';
import { useQuery } from '../state/use-query.ts';
import { EmptyState } from '../components/EmptyState.tsx';

/** One task in the side panel: what it is, what happened to it, and what can be done with it. */
export function TaskDetailPanel(props: { taskId: number; onClose(): void; onDuplicate(task: Task): void }) {
  const { taskId, onClose, onDuplicate } = props;
  // Refetched only when a change names this task (or may have: another process wrote).
  const q = useQuery((api) => api.getTask({ id: taskId }), [taskId], {
    touches: (c) => c.external || c.taskIds.has(taskId),
  });
  const panelRef = useRef<HTMLElement>(null);
  // Where focus was when the panel opened (the list, a link): it goes back there on close.
  useEffect(() => {
    const opener = document.activeElement;
    const panel = panelRef.current;
    return () => restoreFocus(opener, panel);
  }, []);

  let body;
  if (q.loading) body = <LoadingState label={`Loading task ${taskId}…`} />;
  else if (!q.data) {
    const gone = q.error instanceof ApiError && q.error.status === 404;
    body = gone ? (
      <EmptyState symbol="⊘" title={`Task ${taskId} does not exist`}>
        It was deleted, or purged by retention.
      </EmptyState>
    ) : (
      <ErrorState error={q.error!} what={`task ${taskId}`} onRetry={q.reload} />
    );
  } else body = <TaskDetail task={q.data} onClose={onClose} onDuplicate={onDuplicate} reload={q.reload} />;

  return (
    <aside
      ref={panelRef}
      className="detail-panel"
      aria-labelledby="detail-title"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !e.defaultPrevented) {
          e.preventDefault();
          onClose();
        }
      }}
    >
      <header className="detail-head">
        <h2 id="detail-title">{q.data ? q.data.name : `Task ${taskId}`}</h2>
        <button type="button" className="link" aria-label="Close task details" onClick={onClose}>
          ✕
        </button>
      </header>
      {body}
    </aside>
  );
}

function TaskDetail({
  task,
  onClose,
  onDuplicate,
  reload,
}: {
  task: TaskWithHistory;
  onClose(): void;
  onDuplicate(task: Task): void;
  reload(): void;
}) {
  const actions = useTaskActions();
  const now = useNow(1000);
  const stats = useStats().data;
  const waiting = stats ? whyWaiting(task, { stats, now }) : null;
  const attempts = task.history.filter((h) => h.type === 'attempt').length;
  const command = task.kind === 'shell' ? shellCommandLine(task.payload) : null;
  const firstStart = task.history.find((h) => h.type === 'attempt')?.startedAt ?? task.startedAt;
  // A cancel is the user's own doing, not a failure to be alarmed by.
  const errorTone = task.status === 'cancelled' ? 'tone-grey' : 'tone-red';
  const eta = task.status === 'running' ? remainingMs(task.progress, task.startedAt, now) : null;
  return (
    <div className="detail-body">
      <div className="detail-status">
        <StatusBadge status={task.status} />
        <span className="muted">
          task {task.id} · {task.kind} · group {task.group}
        </span>
      </div>
      <div className="detail-actions" role="toolbar" aria-label="Task actions">
        {canRetry(task.status) && (
          <button
            type="button"
            className="primary"
            onClick={async () => (await actions.retry([task])) && reload()}
          >
            {/* A retrying task waits for its backoff: a retry now starts it as soon as a slot is free. */}
            <span aria-hidden="true">↻</span> {task.status === 'retrying' ? 'Run now' : 'Retry'}
          </button>
        )}
        {canCancel(task.status) && !task.cancelRequested && (
          <button type="button" onClick={async () => (await actions.cancel([task])) && reload()}>
            <span aria-hidden="true">⊘</span> Cancel
          </button>
        )}
        {canDelete(task.status) && (
          <button
            type="button"
            className="danger"
            onClick={async () => (await actions.remove([task])) && onClose()}
          >
            <span aria-hidden="true">⌫</span> Delete
          </button>
        )}
        <button type="button" onClick={() => onDuplicate(task)}>
          <span aria-hidden="true">⊕</span> Duplicate and edit
        </button>
      </div>
      <ol className="timeline" aria-label="Timeline">
        <li>
          queued <RelativeTime at={task.createdAt} now={now} />
        </li>
        {firstStart !== null && (
          <li>
            started <RelativeTime at={firstStart} now={now} />
          </li>
        )}
        {task.finishedAt !== null && (
          <li>
            ended <RelativeTime at={task.finishedAt} now={now} />
          </li>
        )}
      </ol>
      {task.error && (
        <section
          aria-label={task.status === 'cancelled' ? 'Why it was cancelled' : 'Last error'}
          className={`detail-error ${errorTone}`}
        >
          <pre className="code">{task.error}</pre>
          <CopyButton text={task.error} what="the error" />
        </section>
      )}
      <dl className="facts">
        <dt>Priority</dt>
        <dd>
          <PriorityPicker task={task} onDone={reload} />
        </dd>
        <dt>Attempts</dt>
        <dd>
          {task.attempts} of {task.maxAttempts}
          {task.retryAfterCount > 0 && (
            <span className="muted"> (+{task.retryAfterCount} server-requested waits)</span>
          )}
        </dd>
        {task.status === 'running' && (
          <>
            <dt>Progress</dt>
            <dd className="detail-progress">
              <ProgressBar value={task.progress} label={`Progress of ${task.name}`} />{' '}
              {task.progress === null ? 'not reported' : `${Math.round(task.progress * 100)}%`}
              {eta !== null && <span className="muted"> · about {humanDuration(eta)} left</span>}
            </dd>
            <dt>Worker</dt>
            <dd>{task.leaseOwner ?? '—'}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <RelativeTime at={task.createdAt} now={now} />
        </dd>
        {(task.status === 'pending' || task.status === 'retrying') && (
          <>
            <dt>Starts</dt>
            <dd>
              {task.runAt <= now ? 'as soon as a slot is free' : <RelativeTime at={task.runAt} now={now} />}
            </dd>
            {waiting && (
              <>
                <dt>Waiting</dt>
                <dd data-waiting={waiting.code}>{afterWaiting(waiting.message)}</dd>
              </>
            )}
          </>
        )}
        <dt>Started</dt>
        <dd>
          <RelativeTime at={task.startedAt} now={now} />
        </dd>
        <dt>Finished</dt>
        <dd>
          <RelativeTime at={task.finishedAt} now={now} />
          {task.finishedAt && task.startedAt && (
            <span className="muted"> after {humanDuration(task.finishedAt - task.startedAt)}</span>
          )}
        </dd>
        <dt>Timeout</dt>
        <dd>{task.timeout === null ? 'none' : humanDuration(task.timeout)}</dd>
        {task.unique && (
          <>
            <dt>Unique key</dt>
            <dd>{task.unique}</dd>
          </>
        )}
        {task.reservedFor && (
          <>
            <dt>Reserved for</dt>
            <dd>{task.reservedFor}</dd>
          </>
        )}
      </dl>
      <section aria-labelledby="payload-title">
        <h3 id="payload-title">{command !== null ? 'Command' : 'Payload'}</h3>
        {command !== null ? (
          <div className="command-line">
            <pre className="code" aria-label="Command line" tabIndex={0}>
              {command}
            </pre>
            <CopyButton text={command} what="the command line" />
          </div>
        ) : null}
        {/* The command line leaves out the folder and environment: the JSON says all. */}
        {command !== null ? (
          <details>
            <summary>Payload as JSON</summary>
            <JsonBlock value={task.payload} label="Payload" />
          </details>
        ) : (
          <JsonBlock value={task.payload} label="Payload" />
        )}
      </section>
      <section aria-labelledby="result-title">
        <h3 id="result-title">Result</h3>
        <JsonBlock value={task.result} label="Result" />
      </section>
      <section aria-labelledby="history-title">
        <h3 id="history-title">
          History <span className="muted">({attempts === 1 ? '1 attempt' : `${attempts} attempts`})</span>
        </h3>
        <HistoryList history={task.history} now={now} />
      </section>
    </div>
  );
}
