import type { ApiInput } from '../../shared/api.ts';
import type { TaskStatus } from '../../shared/domain.ts';
import type { SORT_FIELDS } from '../../shared/schemas.ts';

export type SortField = (typeof SORT_FIELDS)[number];

/** What the Tasks screen shows; kept above the screen so it survives a visit elsewhere. */
export interface TaskFilters {
  status: TaskStatus[];
  group: string;
  kind: string;
  /** the tasks one schedule enqueued (its name shown, its id asked for); null: any */
  schedule: { id: number; name: string } | null;
  search: string;
  sort: SortField;
  order: 'asc' | 'desc';
}

export const NO_FILTERS: TaskFilters = {
  status: [],
  group: '',
  kind: '',
  schedule: null,
  search: '',
  sort: 'createdAt',
  order: 'desc',
};

export function isFiltered(f: TaskFilters): boolean {
  return (
    f.status.length > 0 || f.group !== '' || f.kind !== '' || f.schedule !== null || f.search.trim() !== ''
  );
}

export function toListQuery(f: TaskFilters): NonNullable<ApiInput<'listTasks'>> {
  const q: NonNullable<ApiInput<'listTasks'>> = { sort: f.sort, order: f.order };
  if (f.status.length) q.status = f.status;
  if (f.group) q.group = f.group;
  if (f.kind) q.kind = f.kind;
  if (f.schedule) q.schedule = f.schedule.id;
  if (f.search.trim()) q.search = f.search.trim();
  return q;
}
