import { memo, useEffect, useState, type CSSProperties, type MouseEvent } from 'react';
import type { Task } from '../../shared/domain.ts';
import type { WaitReason } from '../../shared/why-waiting.ts';
import { isPlainClick, taskHref } from '../state/route.ts';
import { RelativeTime } from './RelativeTime.tsx';
import { StatusBadge } from './StatusBadge.tsx';

/** The time that matters for a task in its status, and what it means. */
function timeOf(task: Task): { label: string; at: number | null } {
  switch (task.status) {
    case 'running':
      return { label: 'started', at: task.startedAt };
    case 'pending':
    case 'retrying':
      return task.runAt > Date.now()
        ? { label: 'starts', at: task.runAt }
        : { label: 'queued', at: task.createdAt };
    default:
      return { label: 'ended', at: task.finishedAt };
  }
}

/** Reasons the time cell already says ("queued 2 min ago", "starts in 5 min"). */
const TIMED = new Set(['ready', 'delayed', 'backoff']);

export interface TaskRowProps {
  task: Task | undefined;
  index: number;
  selected: boolean;
  active: boolean;
  open: boolean;
  now: number;
  /** why it waits, when it does (why-waiting.ts) */
  waiting?: WaitReason | null;
  /** offset from the top of the list, px */
  top: number;
  onClick(index: number, event: MouseEvent): void;
  onToggle(index: number, event: MouseEvent): void;
  /** px: one line, or a two-line card on a narrow screen (useRowHeight) */
  height: number;
}

export const ROW_HEIGHT = 30;
/** Below this width a row is a two-line card (components.css says the same). */
export const CARD_QUERY = '(max-width: 600px)';
export const CARD_HEIGHT = 54;

/** The row height for this window's width, following it as the window is resized. */
export function useRowHeight(): number {
  const [narrow, setNarrow] = useState(() => window.matchMedia(CARD_QUERY).matches);
  useEffect(() => {
    const query = window.matchMedia(CARD_QUERY);
    const onChange = () => setNarrow(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return narrow ? CARD_HEIGHT : ROW_HEIGHT;
}

/** One line per task, like a mail client: status, name, group, kind, attempts, relative time. */
export const TaskRow = memo(function TaskRow(props: TaskRowProps) {
  const { task, index, selected, active, open, now, waiting, top, onClick, onToggle, height } = props;
  const style: CSSProperties = { transform: `translateY(${top}px)`, height };
  if (!task) {
    return (
      <div role="row" aria-rowindex={index + 2} className="task-row placeholder" style={style}>
        <div role="gridcell" className="cell-wide muted">
          Loading…
        </div>
      </div>
    );
  }
  const t = timeOf(task);
  return (
    <div
      role="row"
      id={`task-row-${task.id}`}
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-task-id={task.id}
      className={`task-row${selected ? ' selected' : ''}${active ? ' active' : ''}${open ? ' open' : ''}`}
      style={style}
      onClick={(e) => onClick(index, e)}
    >
      <div role="gridcell" className="cell-check">
        <input
          type="checkbox"
          tabIndex={-1}
          checked={selected}
          aria-label={`Select task ${task.id} ${task.name}`}
          onClick={(e) => {
            e.stopPropagation();
            onToggle(index, e);
          }}
          onChange={() => {}}
        />
      </div>
      <div role="gridcell" className="cell-status">
        <StatusBadge status={task.status} compact />
      </div>
      <div role="gridcell" className="cell-name" title={task.name}>
        <a
          href={taskHref(task.id)}
          tabIndex={-1}
          onClick={(e) => {
            // A plain click opens the panel (the row's click); a modified one is the browser's.
            if (isPlainClick(e)) e.preventDefault();
            else e.stopPropagation();
          }}
        >
          {task.name}
        </a>
        {task.cancelRequested && <span className="muted"> (stopping)</span>}
      </div>
      <div role="gridcell" className="cell-group">
        {task.group}
      </div>
      <div role="gridcell" className="cell-kind">
        {task.kind}
      </div>
      <div
        role="gridcell"
        className="cell-attempts"
        title={`${task.attempts} of ${task.maxAttempts} attempts used`}
      >
        {task.attempts}/{task.maxAttempts}
      </div>
      <div role="gridcell" className="cell-time" title={waiting?.message}>
        {waiting && !TIMED.has(waiting.code) ? (
          <span className="tone-amber" data-waiting={waiting.code}>
            {waiting.short}
          </span>
        ) : (
          <>
            <span className="muted">{t.label} </span>
            <RelativeTime at={t.at} now={now} />
          </>
        )}
      </div>
    </div>
  );
});
