/**
 * One subscription to the queue's `changed` events for the whole window, turned into a version
 * number that live queries depend on. The source coalesces to a few events per second; here they
 * are coalesced again to at most one refresh a second, so a screen left open while tasks run
 * costs one round of requests a second (sent as one batch by the HTTP transport), not five.
 */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import type { QueueApi } from '../../shared/api.ts';

export const CHANGE_THROTTLE_MS = 1000;

export interface ChangeState {
  /** bumps once per (throttled) batch of changes */
  version: number;
  /** task ids named since the previous bump; empty when unknown (another process wrote) */
  taskIds: ReadonlySet<number>;
  /** whether the last batch came (partly) from another process, so any task may have changed */
  external: boolean;
}

const initial: ChangeState = { version: 0, taskIds: new Set(), external: false };
const ChangeContext = createContext<ChangeState>(initial);

export function ChangesProvider({ api, children }: { api: QueueApi; children: ReactNode }) {
  const [state, setState] = useState<ChangeState>(initial);
  useEffect(() => {
    let pendingIds = new Set<number>();
    let pendingExternal = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let last = 0;
    const flush = () => {
      timer = null;
      last = Date.now();
      const taskIds = pendingIds;
      const external = pendingExternal;
      pendingIds = new Set();
      pendingExternal = false;
      setState((s) => ({ version: s.version + 1, taskIds, external }));
    };
    const off = api.subscribe((event) => {
      if (event.type !== 'changed') return;
      for (const id of event.data.taskIds) pendingIds.add(id);
      // An empty id list means "something changed" (too many ids, or another process).
      if (event.data.external || event.data.taskIds.length === 0) pendingExternal = true;
      if (timer) return;
      timer = setTimeout(flush, Math.max(0, last + CHANGE_THROTTLE_MS - Date.now()));
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [api]);
  return <ChangeContext.Provider value={state}>{children}</ChangeContext.Provider>;
}

export function useChanges(): ChangeState {
  return useContext(ChangeContext);
}
