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
    // The attempts matched as one set (history read once), not by a lookup per task: a page and
    // its total over 100,000 tasks took 50 ms with the lookups, 27 ms so (no output kept; with
    // 19 MB of output in 9,375 attempts, ~107 ms either way: the LIKE over it).
    const like = (col: string) => `${col} LIKE ? ESCAPE '\\'`;
    where.push(
      `(${like('name')} OR ${like('error')} OR ${like('payload')} OR id = ? OR id IN ` +
        `(SELECT task_id FROM history WHERE ${like('output')} OR ${like('error')}))`,
    );
    const pattern = likeAnywhere(f.search);
    params.push(pattern, pattern, pattern, searchedId(f.search) ?? -1, pattern, pattern);
  }
  return { where, params };
}
