import { useId } from 'react';
import type { Task } from '../../shared/domain.ts';
import { groupTitle, type FailureGroup } from '../state/failure-groups.ts';
import { formatCount, plural } from '../state/format.ts';
import { isPlainClick, taskHref } from '../state/route.ts';
import type { Selection } from '../state/use-selection.ts';
import { RelativeTime } from './RelativeTime.tsx';

/** One kind + error with its tasks: select, open, retry or discard them. */
export function FailureGroupSection(props: {
  group: FailureGroup;
  selection: Selection;
  openTaskId: number | null;
  now: number;
  onOpen(task: Task): void;
  onRetry(tasks: Task[]): void;
  onDiscard(tasks: Task[]): void;
  /**
   * Given when older failures are not loaded: the group's buttons then act on every failed task
   * with this cause, on the server (the confirm says how many).
   */
  onAll?: { retry(): void; discard(): void; count: number | undefined };
}) {
  const { group, selection, openTaskId, now, onOpen, onRetry, onDiscard, onAll } = props;
  const selectedHere = group.tasks.filter((t) => selection.has(t.id)).length;
  const all = selectedHere === group.tasks.length;
  const headingId = `failure-${useId().replace(/[^a-z0-9]+/gi, '')}`;
  return (
    <section className="failure-group panel" aria-labelledby={headingId}>
      <header className="failure-head">
        <input
          type="checkbox"
          aria-label={`Select all ${group.tasks.length} with this error`}
          checked={all}
          ref={(el) => {
            if (el) el.indeterminate = selectedHere > 0 && !all;
          }}
          onChange={() => selection.setMany(group.tasks, !all)}
        />
        <div className="failure-title">
          <h2 id={headingId} title={groupTitle(group)}>
            <span className="tone-red" aria-hidden="true">
              ✕{' '}
            </span>
            <span className="failure-kind">{group.kind}</span>{' '}
            <span className="failure-error">{groupTitle(group)}</span>
          </h2>
          {group.command && (
            <code className="failure-command" title={group.command}>
              {group.command}
            </code>
          )}
        </div>
        <span className="muted">
          {onAll?.count !== undefined
            ? `${formatCount(group.tasks.length)} of ${plural(onAll.count, 'task')} shown`
            : plural(group.tasks.length, 'task')}
        </span>
        <div className="button-row">
          {onAll ? (
            <>
              <button type="button" onClick={onAll.retry}>
                {onAll.count === undefined
                  ? 'Retry all with this error'
                  : `Retry all ${formatCount(onAll.count)}`}
              </button>
              <button type="button" className="danger" onClick={onAll.discard}>
                {onAll.count === undefined
                  ? 'Discard all with this error'
                  : `Discard all ${formatCount(onAll.count)}`}
              </button>
            </>
          ) : (
            <>
              <button type="button" onClick={() => onRetry(group.tasks)}>
                {group.tasks.length === 1 ? 'Retry' : `Retry these ${group.tasks.length}`}
              </button>
              <button type="button" className="danger" onClick={() => onDiscard(group.tasks)}>
                {group.tasks.length === 1 ? 'Discard' : `Discard these ${group.tasks.length}`}
              </button>
            </>
          )}
        </div>
      </header>
      <ul className="failure-tasks">
        {group.tasks.map((t) => (
          <li key={t.id} className={t.id === openTaskId ? 'open' : undefined}>
            <input
              type="checkbox"
              aria-label={`Select task ${t.id} ${t.name}`}
              checked={selection.has(t.id)}
              onChange={() => selection.toggle(t)}
            />
            <a
              data-row
              className="failure-task"
              href={taskHref(t.id)}
              onClick={(e) => {
                if (!isPlainClick(e)) return; // the browser's new tab
                e.preventDefault();
                onOpen(t);
              }}
              onKeyDown={(e) => {
                if (e.key.toLowerCase() === 'r' && !e.ctrlKey && !e.metaKey) {
                  e.preventDefault();
                  onRetry([t]);
                } else if (e.key === 'Delete') {
                  e.preventDefault();
                  onDiscard([t]);
                }
              }}
            >
              <span className="failure-task-name">{t.name}</span>
              <span className="muted">
                #{t.id} · {t.group} · {t.attempts}/{t.maxAttempts} attempts · failed{' '}
                <RelativeTime at={t.finishedAt} now={now} />
              </span>
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
