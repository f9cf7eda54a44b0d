/**
 * The virtualised task grid: only the rows in view exist in the DOM, and only their pages are
 * fetched (useTaskPages), so 100,000 tasks scroll like 100. Keyboard: arrows / Page / Home / End
 * move, Enter opens, Space selects (Shift+arrows extend), R retries, Delete deletes, Escape clears.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, type KeyboardEvent, type MouseEvent } from 'react';
import type { Task } from '../../shared/domain.ts';
import type { Selection } from '../state/use-selection.ts';
import type { TaskPages } from '../state/use-task-pages.ts';
import { whyWaiting } from '../../shared/why-waiting.ts';
import { useStats } from '../state/stats.tsx';
import { TaskRow, useRowHeight } from './TaskRow.tsx';

export interface TaskListProps {
  pages: TaskPages;
  total: number;
  selection: Selection;
  active: number;
  setActive(index: number): void;
  openTaskId: number | null;
  now: number;
  onOpen(task: Task): void;
  onRetry(tasks: Task[]): void;
  onDelete(tasks: Task[]): void;
  /** Ctrl+A, with the rows loaded now: selects every task that matches, not only these */
  onSelectAll(loaded: Task[]): void;
  /** Escape with nothing selected (closes the detail panel) */
  onEscape(): void;
  /** bumps when the query changes, to scroll back to the top */
  resetKey: string;
}

let firstRowsMarked = false;

export function TaskList(props: TaskListProps) {
  // Why each waiting row waits comes from the window's stats (why-waiting.ts), no request of its own.
  const stats = useStats().data;
  const {
    pages,
    total,
    selection,
    active,
    setActive,
    openTaskId,
    now,
    onOpen,
    onRetry,
    onDelete,
    onSelectAll,
    onEscape,
    resetKey,
  } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const gridRef = useRef<HTMLDivElement>(null);
  const anchor = useRef<number | null>(null);
  const rowHeight = useRowHeight();
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
  });
  useEffect(() => virtualizer.measure(), [rowHeight, virtualizer]);
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;

  useEffect(() => {
    pages.setRange(first, last);
  }, [first, last, pages]);

  useEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
  }, [resetKey]);

  // Keep the selection's copies current, so bulk actions see the statuses shown.
  const visible = items.map((i) => pages.rowAt(i.index));
  useEffect(() => {
    if (selection.size > 0) selection.refresh(visible.filter((t): t is Task => t !== undefined));
  });

  const anyRow = items.length > 0 && pages.rowAt(first) !== undefined;
  useEffect(() => {
    // For the e2e run's first-paint measurement: when the first real rows are on screen.
    if (anyRow && !firstRowsMarked) {
      firstRowsMarked = true;
      performance.mark('semaforo:first-task-rows');
    }
  }, [anyRow]);

  const move = useCallback(
    (to: number, extend: boolean) => {
      const next = Math.max(0, Math.min(total - 1, to));
      setActive(next);
      virtualizer.scrollToIndex(next, { align: 'auto' });
      if (extend) {
        const t = pages.rowAt(next);
        if (t) selection.setMany([t], true);
      }
    },
    [total, setActive, virtualizer, pages, selection],
  );

  const targets = (): Task[] => {
    if (selection.size > 0) return selection.tasks();
    const t = pages.rowAt(active);
    return t ? [t] : [];
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (total === 0 || e.altKey) return;
    const perPage = Math.max(1, items.length - 4);
    const mod = e.ctrlKey || e.metaKey;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    switch (key) {
      case 'ArrowDown':
        move(active + 1, e.shiftKey);
        break;
      case 'ArrowUp':
        move(active - 1, e.shiftKey);
        break;
      case 'PageDown':
        move(active + perPage, false);
        break;
      case 'PageUp':
        move(active - perPage, false);
        break;
      case 'Home':
        move(0, false);
        break;
      case 'End':
        move(total - 1, false);
        break;
      case 'Enter': {
        const t = pages.rowAt(active);
        if (t) onOpen(t);
        break;
      }
      case ' ': {
        const t = pages.rowAt(active);
        if (t) selection.toggle(t);
        break;
      }
      case 'Escape':
        if (selection.size > 0) selection.clear();
        else if (openTaskId !== null) onEscape();
        else return;
        break;
      case 'a': {
        if (!mod) return;
        const loaded = items.map((i) => pages.rowAt(i.index)).filter((t): t is Task => t !== undefined);
        onSelectAll(loaded);
        break;
      }
      case 'r':
        if (mod) return;
        onRetry(targets());
        break;
      case 'Delete':
        onDelete(targets());
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const onClick = useCallback(
    (index: number, e: MouseEvent) => {
      setActive(index);
      gridRef.current?.focus({ preventScroll: true });
      const t = pages.rowAt(index);
      if (!t) return;
      if (e.ctrlKey || e.metaKey) selection.toggle(t);
      else onOpen(t);
    },
    [setActive, pages, selection, onOpen],
  );

  const onToggle = useCallback(
    (index: number, e: MouseEvent) => {
      setActive(index);
      const t = pages.rowAt(index);
      if (!t) return;
      if (e.shiftKey && anchor.current !== null) {
        const [a, b] = [Math.min(anchor.current, index), Math.max(anchor.current, index)];
        const range: Task[] = [];
        for (let i = a; i <= b; i++) {
          const r = pages.rowAt(i);
          if (r) range.push(r);
        }
        selection.setMany(range, true);
      } else selection.toggle(t);
      anchor.current = index;
    },
    [setActive, pages, selection],
  );

  const activeTask = pages.rowAt(active);
  return (
    <div
      ref={gridRef}
      className="task-grid"
      role="grid"
      aria-label="Tasks"
      aria-rowcount={total + 1}
      aria-multiselectable="true"
      aria-activedescendant={activeTask ? `task-row-${activeTask.id}` : undefined}
      tabIndex={0}
      onKeyDown={onKeyDown}
    >
      <div role="rowgroup" className="task-grid-head">
        <div role="row" aria-rowindex={1} className="task-row head">
          <div role="columnheader" className="cell-check">
            <span className="sr-only">Selected</span>
          </div>
          <div role="columnheader" className="cell-status">
            Status
          </div>
          <div role="columnheader" className="cell-name">
            Name
          </div>
          <div role="columnheader" className="cell-group">
            Group
          </div>
          <div role="columnheader" className="cell-kind">
            Kind
          </div>
          <div role="columnheader" className="cell-attempts">
            Tries
          </div>
          <div role="columnheader" className="cell-time">
            When
          </div>
        </div>
      </div>
      <div ref={scrollRef} className="task-grid-scroll">
        <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const task = pages.rowAt(item.index);
            return (
              <TaskRow
                key={item.index}
                task={task}
                index={item.index}
                selected={task ? selection.has(task.id) : false}
                active={item.index === active}
                open={task?.id === openTaskId}
                now={now}
                waiting={task && stats ? whyWaiting(task, { stats, now }) : null}
                top={item.start}
                height={rowHeight}
                onClick={onClick}
                onToggle={onToggle}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}
