/**
 * The list's filter as PostgreSQL conditions on `tasks` (the list's page and an action by filter
 * select the same tasks), each apart so the list can answer its total from `counts` while the
 * filter is one `counts` can answer.
 */
import type { TaskFilter } from '../../../../shared/task-filter.ts';
import { likeAnywhere, searchedId } from '../search-scope.ts';
import type { Db } from './db.ts';
import { searchCollation } from './search-fold.ts';

export interface FilterConditions {
  status: string | null;
  group: string | null;
  kind: string | null;
  schedule: string | null;
  search: string | null;
}

/**
 * A condition on the status, written so an index serves it: one status as `=` (the planner
 * reads an index in order only for a single value); running tasks apart, since tasks_status
 * holds the waiting ones only (schemas 5 and 6) and tasks_running holds them; ended ones are in
 * tasks_ended.
 */
export function statusIn(statuses: readonly string[], param: (v: unknown) => string): string {
  const rest = statuses.filter((s) => s !== 'running');
  if (rest.length === 0) return "status = 'running'";
  const others = rest.length === 1 ? `status = ${param(rest[0])}` : `status = ANY(${param(rest)}::text[])`;
  return rest.length === statuses.length ? others : `(status = 'running' OR ${others})`;
}

/** `param(v)` adds a parameter and gives its placeholder. */
export async function filterConditions(
  db: Db,
  f: Omit<TaskFilter, 'cause'>,
  param: (v: unknown) => string,
): Promise<FilterConditions> {
  const out: FilterConditions = { status: null, group: null, kind: null, schedule: null, search: null };
  if (f.status && f.status.length > 0) out.status = statusIn(f.status, param);
  if (f.group) out.group = `group_name = ${param(f.group)}`;
  if (f.kind) out.kind = `kind = ${param(f.kind)}`;
  if (f.schedule !== undefined) out.schedule = `schedule_id = ${param(f.schedule)}`;
  // lower() folds case beyond ASCII (`élan` finds `Élan`), as the faces promise, whatever the
  // database's locale (search-fold.ts); a third faster than ILIKE over 100,000 names.
  if (f.search) {
    const c = await searchCollation(db);
    const p = param(likeAnywhere(f.search));
    const like = (col: string) => `lower(${col}${c}) LIKE lower(${p}${c}) ESCAPE '\\'`;
    // search-scope.ts: the name, error, payload, any attempt's output, or the id. The attempts as
    // one hashed set: an EXISTS per task, inside the OR, was costed so high that it ran with JIT
    // (a count over 100,000 tasks 151-473 ms, against 38 ms so).
    out.search =
      `(${like('name')} OR ${like('error')} OR ${like('payload')} OR id = ${param(searchedId(f.search) ?? -1)}` +
      ` OR id IN (SELECT task_id FROM history WHERE ${like('output')} OR ${like('error')}))`;
  }
  return out;
}
