import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Task } from '../../shared/domain.ts';
import { BulkBar } from '../components/BulkBar.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorState } from '../components/ErrorState.tsx';
import { LoadingState } from '../components/LoadingState.tsx';
import { TaskFiltersBar } from '../components/TaskFiltersBar.tsx';
import { TaskList } from '../components/TaskList.tsx';
import { formatCount, plural } from '../state/format.ts';
import { useStats } from '../state/stats.tsx';
import { useTaskActions } from '../state/task-actions.ts';
import { isFiltered, NO_FILTERS, toListQuery, type TaskFilters } from '../state/task-filters.ts';
import { useNow } from '../state/use-now.ts';
import { useQuery } from '../state/use-query.ts';
import { useSelection } from '../state/use-selection.ts';
import { useTaskPages } from '../state/use-task-pages.ts';
import { useMatchingActions } from '../state/matching-actions.ts';
import type { BulkAction } from '../../shared/task-filter.ts';
import { isTyping } from '../state/keyboard.ts';

export function TasksScreen(props: {
  filters: TaskFilters;
  setFilters(filters: TaskFilters): void;
  openTaskId: number | null;
  openTask(task: Task): void;
  closeTask(): void;
  newTask(): void;
}) {
  const { filters, setFilters, openTaskId, openTask, closeTask, newTask } = props;
  const query = toListQuery(filters);
  const pages = useTaskPages(query);
  const picked = useSelection();
  const actions = useTaskActions();
  const stats = useStats();
  const kinds = useQuery((api) => api.kinds({}), [], { live: false, refreshMs: 0 });
  const now = useNow(5000);
  const [active, setActive] = useState(0);
  const searchRef = useRef<HTMLInputElement>(null);
  const resetKey = JSON.stringify(query);
  // "Select all N matching": the bulk actions then act by filter, on the server.
  const [allMatching, setAllMatching] = useState(false);
  // The selection was "all matching" until a row was unticked: now the rows loaded then, less it.
  const [narrowed, setNarrowed] = useState(false);
  const onMatching = useMatchingActions();

  // Other filters, other tasks: a selection made under the old ones would be acted on unseen.
  const { clear: clearPicked } = picked;
  useEffect(() => {
    setActive(0);
    setAllMatching(false);
    setNarrowed(false);
    clearPicked();
  }, [resetKey, clearPicked]);
  // While all match, every row shows as selected, also the ones loaded later. Unticking one then
  // cannot keep "all matching" (the request names no exceptions), so it becomes the rows loaded
  // now less the unticked ones: shown as selected, and nothing else, is what the actions touch.
  const { loaded } = pages;
  const selection = useMemo(() => {
    const narrow = (unticked: readonly Task[]) => {
      const out = new Set(unticked.map((t) => t.id));
      picked.clear();
      picked.setMany(
        loaded().filter((t) => !out.has(t.id)),
        true,
      );
      setAllMatching(false);
      setNarrowed(true);
    };
    return {
      ...picked,
      has: (id: number) => allMatching || picked.has(id),
      toggle: (t: Task) => (allMatching ? narrow([t]) : picked.toggle(t)),
      setMany: (ts: readonly Task[], on: boolean) => {
        if (!allMatching) picked.setMany(ts, on);
        else if (!on) narrow(ts);
      },
      clear: () => {
        setAllMatching(false);
        setNarrowed(false);
        picked.clear();
      },
    };
  }, [picked, allMatching, loaded]);
  // Ctrl+A means all that match, as "Select all N matching" does, not the rows that happen to be loaded.
  const selectAll = useCallback(
    (loaded: Task[]) => {
      picked.setMany(loaded, true);
      setAllMatching(true);
      setNarrowed(false);
    },
    [picked],
  );

  // `/` focuses the search from anywhere on this screen (DESIGN-UI keyboard).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      e.preventDefault();
      searchRef.current?.focus();
      searchRef.current?.select();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const after = useCallback(
    (ids: number[] | null, drop = false) => {
      if (!ids) return;
      if (drop) selection.drop(ids);
      else selection.clear();
      pages.reload();
    },
    [selection, pages],
  );
  const retry = useCallback(async (tasks: Task[]) => after(await actions.retry(tasks)), [actions, after]);
  const cancel = useCallback(async (tasks: Task[]) => after(await actions.cancel(tasks)), [actions, after]);
  const remove = useCallback(
    async (tasks: Task[]) => after(await actions.remove(tasks), true),
    [actions, after],
  );
  const clear = useCallback(() => selection.clear(), [selection]);
  const bulk = async (action: BulkAction, onSelected: (tasks: Task[]) => Promise<void>) => {
    if (!allMatching) return onSelected(selection.tasks());
    const { sort: _sort, order: _order, ...filter } = query;
    const matching = pages.total;
    const scope = {
      describe: isFiltered(filters) ? 'matching these filters' : 'in the queue',
      ...(matching !== undefined ? { matching } : {}),
    };
    if (!(await onMatching(action, filter, scope))) return;
    clear();
    pages.reload();
  };

  const groupNames = (stats.data?.groups ?? []).map((g) => g.name);
  if (filters.group && !groupNames.includes(filters.group)) groupNames.push(filters.group);
  const kindNames = (kinds.data ?? []).map((k) => k.kind);
  if (filters.kind && !kindNames.includes(filters.kind)) kindNames.push(filters.kind);

  const total = pages.total;
  let body;
  if (total === undefined) {
    body = pages.error ? (
      <ErrorState error={pages.error} what="tasks" onRetry={pages.reload} />
    ) : (
      <LoadingState label="Loading tasks…" />
    );
  } else if (total === 0) {
    body = isFiltered(filters) ? (
      <EmptyState symbol="⌕" title="No tasks match these filters">
        <button
          type="button"
          onClick={() => setFilters({ ...NO_FILTERS, sort: filters.sort, order: filters.order })}
        >
          Clear filters
        </button>
      </EmptyState>
    ) : (
      <EmptyState symbol="○" title="No tasks yet">
        <p>
          Add one with{' '}
          <button type="button" className="link" onClick={newTask}>
            New task
          </button>
          , or from a terminal: <code>semaforo enqueue -- echo hello</code>
        </p>
      </EmptyState>
    );
  } else {
    body = (
      <TaskList
        pages={pages}
        total={total}
        selection={selection}
        active={Math.min(active, total - 1)}
        setActive={setActive}
        openTaskId={openTaskId}
        now={now}
        onOpen={openTask}
        // R and Delete act on what the bar says is selected: all that match, once chosen.
        onRetry={(tasks) => (allMatching ? bulk('retry', retry) : retry(tasks))}
        onDelete={(tasks) => (allMatching ? bulk('remove', remove) : remove(tasks))}
        onSelectAll={selectAll}
        onEscape={closeTask}
        resetKey={resetKey}
      />
    );
  }

  return (
    <div className="screen tasks-screen">
      <header className="screen-head">
        <h1>Tasks</h1>
        <span className="muted" data-testid="task-total" aria-live="polite">
          {total === undefined
            ? ''
            : isFiltered(filters)
              ? `${plural(total, 'match', 'matches')}`
              : plural(total, 'task')}
        </span>
        <button type="button" className="primary push-right" onClick={newTask}>
          <span aria-hidden="true">+</span> New task
        </button>
      </header>
      <TaskFiltersBar
        filters={filters}
        onChange={setFilters}
        groups={groupNames}
        kinds={kindNames}
        searchRef={searchRef}
      />
      <BulkBar
        count={picked.size}
        total={total ?? 0}
        allMatching={allMatching}
        narrowed={narrowed}
        onSelectAllMatching={() => {
          setAllMatching(true);
          setNarrowed(false);
        }}
        onRetry={() => bulk('retry', retry)}
        onCancel={() => bulk('cancel', cancel)}
        onDelete={() => bulk('remove', remove)}
        onClear={clear}
      />
      {pages.error && total !== undefined && (
        <p className="banner tone-red" role="alert">
          Showing older rows: {pages.error.message}
        </p>
      )}
      {body}
      {total !== undefined && total > 0 && (
        <p className="keys-hint muted">
          ↑↓ move · Enter opens · Space selects · Ctrl+A selects all · R retries · Delete deletes · / searches
          · {formatCount(total)} rows
        </p>
      )}
    </div>
  );
}
