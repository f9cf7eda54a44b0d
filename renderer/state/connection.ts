/**
 * Whether live updates are flowing. A transport that can drop (HTTP's event stream) reports it
 * here; the App only reads it, so it still cannot tell which transport it has.
 */
import { createContext, useContext, useSyncExternalStore } from 'react';

export interface ConnectionSignal {
  get(): boolean;
  subscribe(listener: () => void): () => void;
}

export function createConnectionSignal(initial = true): ConnectionSignal & { set(value: boolean): void } {
  let value = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set(next) {
      if (next === value) return;
      value = next;
      for (const l of listeners) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const always: ConnectionSignal = { get: () => true, subscribe: () => () => {} };
export const ConnectionContext = createContext<ConnectionSignal>(always);

/** Whether live updates flow now (always, for a transport that cannot drop). */
export function useConnected(): boolean {
  const signal = useContext(ConnectionContext);
  return useSyncExternalStore(signal.subscribe, signal.get);
}
