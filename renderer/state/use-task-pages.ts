/**
 * The Tasks list's data: the server pages (listTasks with limit/offset), fetched only for the rows
 * in view, so 100,000 tasks cost a few small requests. On `changed` events the pages in view are
 * fetched again in place (rows keep their index, so the scroll position stays) and pages out of
 * view are dropped, to be fetched fresh when scrolled back to. Only the pages a change can have
 * altered are fetched (touched-pages.ts).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApiInput } from '../../shared/api.ts';
import type { Task } from '../../shared/domain.ts';
import { useApi } from './api-context.tsx';
import { useChanges } from './changes.tsx';
import { firstAffectedPage } from './touched-pages.ts';

export const PAGE_SIZE = 200;
const SAFETY_REFRESH_MS = 15_000;

type ListQuery = NonNullable<ApiInput<'listTasks'>>;

export interface TaskPages {
  /** rows matching the query; undefined until the first answer */
  total: number | undefined;
  error: Error | undefined;
  rowAt(index: number): Task | undefined;
  /** every row of the pages held now (in view, or loaded and not yet forgotten) */
  loaded(): Task[];
  /** tell which rows are in view (inclusive), so their pages load */
  setRange(first: number, last: number): void;
  reload(): void;
}

interface PageSlot {
  tasks?: Task[];
  inFlight: boolean;
  again: boolean;
}

export function useTaskPages(query: ListQuery): TaskPages {
  const api = useApi();
  const change = useChanges();
  const { version } = change;
  const changeRef = useRef(change);
  changeRef.current = change;
  const key = JSON.stringify(query);
  const [, setTick] = useState(0);
  const [total, setTotal] = useState<number | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const pages = useRef(new Map<number, PageSlot>());
  const range = useRef({ first: 0, last: 0 });
  const generation = useRef(0);
  const queryRef = useRef(query);
  queryRef.current = query;

  const pagesInView = () => {
    const first = Math.floor(range.current.first / PAGE_SIZE);
    const last = Math.floor(range.current.last / PAGE_SIZE);
    const out: number[] = [];
    for (let p = first; p <= last; p++) out.push(p);
    return out;
  };

  const fetchPage = useCallback(
    (page: number) => {
      const slot = pages.current.get(page) ?? { inFlight: false, again: false };
      pages.current.set(page, slot);
      if (slot.inFlight) {
        slot.again = true;
        return;
      }
      slot.inFlight = true;
      const gen = generation.current;
      api
        .listTasks({ ...queryRef.current, limit: PAGE_SIZE, offset: page * PAGE_SIZE })
        .then(
          (res) => {
            if (gen !== generation.current) return;
            slot.tasks = res.tasks;
            setTotal(res.total);
            setError(undefined);
            setTick((t) => t + 1);
          },
          (err: unknown) => {
            if (gen !== generation.current) return;
            setError(err instanceof Error ? err : new Error(String(err)));
          },
        )
        .finally(() => {
          if (gen !== generation.current) return;
          slot.inFlight = false;
          if (slot.again) {
            slot.again = false;
            fetchPage(page);
          }
        });
    },
    [api],
  );

  /** Fetch the pages in view again and forget the rest (they may have shifted). */
  const refresh = useCallback(() => {
    const keep = new Set(pagesInView());
    for (const p of pages.current.keys()) if (!keep.has(p)) pages.current.delete(p);
    for (const p of keep) fetchPage(p);
  }, [fetchPage]);

  useEffect(() => {
    generation.current++;
    pages.current = new Map();
    range.current = { first: 0, last: 0 };
    setTotal(undefined);
    setError(undefined);
    fetchPage(0);
  }, [key, fetchPage]);

  // Only the pages a change makes stale, from the first affected one on (touched-pages.ts).
  useEffect(() => {
    if (version === 0) return;
    const q = queryRef.current;
    const loaded = new Map([...pages.current].map(([p, slot]) => [p, slot.tasks]));
    const from = firstAffectedPage({
      inView: pagesInView(),
      loaded,
      touched: changeRef.current.external ? null : changeRef.current.taskIds,
      idOrder: (q.sort ?? 'createdAt') === 'createdAt' ? (q.order ?? 'desc') : null,
      pageSize: PAGE_SIZE,
    });
    if (from === Infinity) return;
    const keep = new Set(pagesInView());
    for (const p of pages.current.keys()) if (p >= from && !keep.has(p)) pages.current.delete(p);
    for (const p of keep) if (p >= from) fetchPage(p);
  }, [version, fetchPage]);

  useEffect(() => {
    const t = setInterval(refresh, SAFETY_REFRESH_MS);
    return () => clearInterval(t);
  }, [refresh]);

  const setRange = useCallback(
    (first: number, last: number) => {
      range.current = { first, last };
      for (const p of pagesInView()) {
        const slot = pages.current.get(p);
        if (!slot || (!slot.tasks && !slot.inFlight)) fetchPage(p);
      }
    },
    [fetchPage],
  );

  const rowAt = useCallback((index: number) => {
    const slot = pages.current.get(Math.floor(index / PAGE_SIZE));
    return slot?.tasks?.[index % PAGE_SIZE];
  }, []);

  const loaded = useCallback(() => [...pages.current.values()].flatMap((slot) => slot.tasks ?? []), []);

  return { total, error, rowAt, loaded, setRange, reload: refresh };
}
