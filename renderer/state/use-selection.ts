/**
 * Multi-select by task id (so a selection survives live updates that move rows), keeping the
 * last seen copy of each selected task so bulk actions know their statuses.
 */
import { useCallback, useMemo, useState } from 'react';
import type { Task } from '../../shared/domain.ts';

export interface Selection {
  size: number;
  has(id: number): boolean;
  tasks(): Task[];
  toggle(task: Task): void;
  /** add (true) or remove (false) all of `tasks` */
  setMany(tasks: readonly Task[], selected: boolean): void;
  clear(): void;
  /** forget ids that no longer exist */
  drop(ids: readonly number[]): void;
  /** replace the kept copies of selected tasks with fresher ones (live updates) */
  refresh(tasks: readonly Task[]): void;
}

export function useSelection(): Selection {
  const [map, setMap] = useState<ReadonlyMap<number, Task>>(new Map());
  const toggle = useCallback((task: Task) => {
    setMap((m) => {
      const next = new Map(m);
      if (next.has(task.id)) next.delete(task.id);
      else next.set(task.id, task);
      return next;
    });
  }, []);
  const setMany = useCallback((tasks: readonly Task[], selected: boolean) => {
    setMap((m) => {
      const next = new Map(m);
      for (const t of tasks) {
        if (selected) next.set(t.id, t);
        else next.delete(t.id);
      }
      return next;
    });
  }, []);
  const clear = useCallback(() => setMap(new Map()), []);
  const drop = useCallback((ids: readonly number[]) => {
    setMap((m) => {
      if (!ids.some((id) => m.has(id))) return m;
      const next = new Map(m);
      for (const id of ids) next.delete(id);
      return next;
    });
  }, []);
  const refresh = useCallback((tasks: readonly Task[]) => {
    setMap((m) => {
      const stale = tasks.filter((t) => m.has(t.id) && m.get(t.id) !== t);
      if (stale.length === 0) return m;
      const next = new Map(m);
      for (const t of stale) next.set(t.id, t);
      return next;
    });
  }, []);
  return useMemo(
    () => ({
      size: map.size,
      has: (id: number) => map.has(id),
      tasks: () => [...map.values()],
      toggle,
      setMany,
      clear,
      drop,
      refresh,
    }),
    [map, toggle, setMany, clear, drop, refresh],
  );
}
