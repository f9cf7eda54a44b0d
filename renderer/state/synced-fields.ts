/**
 * A form's fields over the saved values they edit, kept in step with the server without losing
 * typing: when the saved values change (this form saved, or another client did), each field the
 * user has not touched takes the new value and each edited one keeps what was typed. Remounting
 * the form on every change, as a React `key` would, threw the typing away.
 */
import { useCallback, useState } from 'react';

type Fields = object;

/** `fields` over `server`: untouched ones from `next`, edited ones as they are. */
export function mergeFields<T extends Fields>(base: T, fields: T, next: T): T {
  const out = { ...next };
  for (const k of Object.keys(next) as (keyof T)[]) if (fields[k] !== base[k]) out[k] = fields[k];
  return out;
}

export function useSyncedFields<T extends Fields>(
  server: T,
): { fields: T; setFields(f: T): void; dirty: boolean; reset(saved: T): void } {
  const [state, setState] = useState({ base: server, fields: server });
  let current = state;
  if (JSON.stringify(state.base) !== JSON.stringify(server)) {
    // Adjusted while rendering (React's pattern for state that follows a prop): no stale frame.
    current = { base: server, fields: mergeFields(state.base, state.fields, server) };
    setState(current);
  }
  const setFields = useCallback((fields: T) => setState((s) => ({ ...s, fields })), []);
  // After this form's own save: what was saved, as the server wrote it, is what the form shows.
  const reset = useCallback((saved: T) => setState({ base: saved, fields: saved }), []);
  const dirty = JSON.stringify(current.fields) !== JSON.stringify(server);
  return { fields: current.fields, setFields, dirty, reset };
}
