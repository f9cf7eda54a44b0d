/**
 * Loads data from the QueueApi and keeps it fresh: again when `deps` change, on `changed` events
 * (when `live`), and every `refreshMs` as a safety net for events a slow client was not sent.
 * The previous data stays on screen while a refetch runs, so nothing flickers; at most one
 * request per query is in flight (a trigger during a fetch schedules one more after it).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { QueueApi } from '../../shared/api.ts';
import { useApi } from './api-context.tsx';
import { CHANGE_THROTTLE_MS, useChanges, type ChangeState } from './changes.tsx';

export interface QueryOptions {
  /** refetch on `changed` events (default true) */
  live?: boolean;
  /** at most one change-driven refetch per this many ms (default: every event) */
  minIntervalMs?: number;
  /** refetch this often regardless of events; 0 never (default 15 s) */
  refreshMs?: number;
  /** skip loading while false */
  enabled?: boolean;
  /** whether a change concerns this query (default: every change does) */
  touches?: (change: ChangeState) => boolean;
}

export interface QueryState<T> {
  data: T | undefined;
  error: Error | undefined;
  /** true until the first answer (or error) ever */
  loading: boolean;
  /** new deps are loading while the previous answer is still shown */
  stale: boolean;
  /** when the data shown arrived (epoch ms) */
  updatedAt: number | undefined;
  reload(): void;
}

export function useQuery<T>(
  load: (api: QueueApi) => Promise<T>,
  deps: readonly unknown[],
  options: QueryOptions = {},
): QueryState<T> {
  const { live = true, minIntervalMs = 0, refreshMs = 15_000, enabled = true } = options;
  const api = useApi();
  const change = useChanges();
  const { version } = change;
  const touchesRef = useRef(options.touches);
  touchesRef.current = options.touches;
  const changeRef = useRef(change);
  changeRef.current = change;
  /** a change concerned this query, and its refetch waits for minIntervalMs */
  const pending = useRef(false);
  const seenVersion = useRef(0);
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean; at?: number }>({
    loading: enabled,
  });
  const loadRef = useRef(load);
  loadRef.current = load;
  const runner = useRef({ inFlight: false, again: false, generation: 0, lastStart: 0 });

  const run = useCallback(() => {
    const r = runner.current;
    if (r.inFlight) {
      r.again = true;
      return;
    }
    r.inFlight = true;
    r.lastStart = Date.now();
    const generation = r.generation;
    loadRef
      .current(api)
      .then(
        (data) => {
          if (generation === r.generation) setState({ data, loading: false, at: Date.now() });
        },
        (err: unknown) => {
          if (generation !== r.generation) return;
          const error = err instanceof Error ? err : new Error(String(err));
          setState((s) => ({ data: s.data, at: s.at, error, loading: false }));
        },
      )
      .finally(() => {
        // An answer for old deps must not release the slot the current request holds.
        if (generation !== r.generation) return;
        r.inFlight = false;
        if (r.again) {
          r.again = false;
          run();
        }
      });
  }, [api]);

  // New deps: forget the old answer's generation, show loading, fetch.
  useEffect(() => {
    if (!enabled) return;
    const r = runner.current;
    r.generation++;
    r.inFlight = false;
    r.again = false;
    setState((s) => ({ data: s.data, at: s.at, loading: true }));
    run();
  }, [api, enabled, run, ...deps]);

  useEffect(() => {
    if (!enabled || !live || version === 0) return;
    // A new change (not a new minIntervalMs) may make this query pending.
    if (seenVersion.current !== version) {
      seenVersion.current = version;
      if (touchesRef.current?.(changeRef.current) ?? true) pending.current = true;
    }
    if (!pending.current) return;
    const due = () => {
      pending.current = false;
      run();
    };
    const wait = runner.current.lastStart + minIntervalMs - Date.now();
    if (wait <= 0) return due();
    // Rather than a request of its own, ride along with the next change's refresh (one batch);
    // if none comes, refresh a beat after the wait.
    const t = setTimeout(due, wait + CHANGE_THROTTLE_MS);
    return () => clearTimeout(t);
  }, [version, live, enabled, minIntervalMs, run]);

  useEffect(() => {
    if (!enabled || refreshMs <= 0) return;
    // A safety net for missed events: not needed while changes keep the data fresh.
    const t = setInterval(() => {
      if (Date.now() - runner.current.lastStart >= refreshMs / 2) run();
    }, refreshMs);
    return () => clearInterval(t);
  }, [enabled, refreshMs, run]);

  return {
    data: state.data,
    error: state.error,
    loading: state.loading && state.data === undefined,
    stale: state.loading && state.data !== undefined,
    updatedAt: state.at,
    reload: run,
  };
}
