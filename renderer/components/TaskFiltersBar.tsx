import { useEffect, useRef, useState, type RefObject } from 'react';
import { TASK_STATUSES, type TaskStatus } from '../../shared/domain.ts';
import { SORT_FIELDS } from '../../shared/limits.ts';
import { STATUS_META } from '../state/status.ts';
import { isFiltered, NO_FILTERS, type SortField, type TaskFilters } from '../state/task-filters.ts';

const SORT_LABELS: Record<SortField, string> = {
  createdAt: 'Created',
  priority: 'Priority',
  runAt: 'Start time',
  finishedAt: 'Finished',
  name: 'Name',
};
const SEARCH_DEBOUNCE_MS = 200;

export function TaskFiltersBar(props: {
  filters: TaskFilters;
  onChange(filters: TaskFilters): void;
  groups: string[];
  kinds: string[];
  searchRef: RefObject<HTMLInputElement | null>;
}) {
  const { filters, onChange, groups, kinds, searchRef } = props;
  const [search, setSearch] = useState(filters.search);
  // Live updates re-render this often; the debounce must not restart on each of them.
  const latest = useRef({ filters, onChange });
  latest.current = { filters, onChange };
  useEffect(() => setSearch(filters.search), [filters.search]);
  useEffect(() => {
    if (search === latest.current.filters.search) return;
    const t = setTimeout(
      () => latest.current.onChange({ ...latest.current.filters, search }),
      SEARCH_DEBOUNCE_MS,
    );
    return () => clearTimeout(t);
  }, [search]);

  const toggleStatus = (s: TaskStatus) =>
    onChange({
      ...filters,
      status: filters.status.includes(s) ? filters.status.filter((x) => x !== s) : [...filters.status, s],
    });

  return (
    <div className="filters" role="search" aria-label="Filter tasks">
      <input
        ref={searchRef}
        type="search"
        className="filter-search"
        placeholder="Search name, id, error, command, output  ( / )"
        aria-label="Search tasks"
        aria-keyshortcuts="/"
        value={search}
        maxLength={200}
        onChange={(e) => setSearch(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') onChange({ ...filters, search });
          if (e.key === 'Escape' && search) {
            e.stopPropagation();
            setSearch('');
          }
        }}
      />
      <fieldset className="status-filter">
        <legend className="sr-only">Status</legend>
        {TASK_STATUSES.map((s) => {
          const meta = STATUS_META[s];
          return (
            <label key={s} className={`chip tone-${meta.tone}${filters.status.includes(s) ? ' on' : ''}`}>
              <input type="checkbox" checked={filters.status.includes(s)} onChange={() => toggleStatus(s)} />
              <span aria-hidden="true">{meta.symbol}</span> {meta.word}
            </label>
          );
        })}
      </fieldset>
      <label className="inline-field">
        <span>Group</span>
        <select value={filters.group} onChange={(e) => onChange({ ...filters, group: e.target.value })}>
          <option value="">all</option>
          {groups.map((g) => (
            <option key={g} value={g}>
              {g}
            </option>
          ))}
        </select>
      </label>
      <label className="inline-field">
        <span>Kind</span>
        <select value={filters.kind} onChange={(e) => onChange({ ...filters, kind: e.target.value })}>
          <option value="">all</option>
          {kinds.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      {filters.schedule && (
        <span className="chip on schedule-filter">
          Schedule {filters.schedule.name}
          <button
            type="button"
            className="link"
            aria-label={`Show tasks of every schedule, not only ${filters.schedule.name}`}
            onClick={() => onChange({ ...filters, schedule: null })}
          >
            ✕
          </button>
        </span>
      )}
      <label className="inline-field">
        <span>Sort</span>
        <select
          value={filters.sort}
          onChange={(e) => onChange({ ...filters, sort: e.target.value as SortField })}
        >
          {SORT_FIELDS.map((f) => (
            <option key={f} value={f}>
              {SORT_LABELS[f]}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        aria-label={
          filters.order === 'desc'
            ? 'Descending order; switch to ascending'
            : 'Ascending order; switch to descending'
        }
        title={filters.order === 'desc' ? 'Descending' : 'Ascending'}
        onClick={() => onChange({ ...filters, order: filters.order === 'desc' ? 'asc' : 'desc' })}
      >
        {filters.order === 'desc' ? '↓' : '↑'}
      </button>
      {isFiltered(filters) && (
        <button
          type="button"
          className="link"
          onClick={() => onChange({ ...NO_FILTERS, sort: filters.sort, order: filters.order })}
        >
          Clear filters
        </button>
      )}
    </div>
  );
}
