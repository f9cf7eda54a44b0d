/**
 * The list's filter as SQLite conditions on `tasks t` (the list's page and an action by filter
 * select the same tasks). The search is search-scope.ts, written as LIKE.
 */
import type { TaskFilter } from '../../../../shared/task-filter.ts';
import { likeAnywhere, searchedId } from '../search-scope.ts';

export interface FilterSql {
  where: string[];
  params: (string | number)[];
}

export function filterSql(f: Omit<TaskFilter, 'cause'>): FilterSql {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (f.status && f.status.length > 0) {
    where.push(`status IN (${f.status.map(() => '?').join(', ')})`);
    params.push(...f.status);
  }
  if (f.group) {
    where.push('group_name = ?');
    params.push(f.group);
  }
  if (f.kind) {
    where.push('kind = ?');
    params.push(f.kind);
  }
  if (f.schedule !== undefined) {
    where.push('schedule_id = ?');
    params.push(f.schedule);
  }
  if (f.search) {
    // 100,000 tasks with 10,000 attempts' output: about 50 ms a page.
    const like = (col: string) => `${col} LIKE ? ESCAPE '\\'`;
    where.push(
      `(${like('name')} OR ${like('error')} OR ${like('payload')} OR id = ? OR EXISTS ` +
        `(SELECT 1 FROM history h WHERE h.task_id = t.id AND (${like('h.output')} OR ${like('h.error')})))`,
    );
    const pattern = likeAnywhere(f.search);
    params.push(pattern, pattern, pattern, searchedId(f.search) ?? -1, pattern, pattern);
  }
  return { where, params };
}
