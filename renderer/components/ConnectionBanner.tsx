import { useSyncExternalStore } from 'react';
import type { ConnectionSignal } from '../state/connection.ts';

/** Says so when live updates stop (the event stream dropped); it reconnects by itself. */
export function ConnectionBanner({ connection }: { connection: ConnectionSignal }) {
  const connected = useSyncExternalStore(connection.subscribe, connection.get);
  if (connected) return null;
  return (
    <p className="banner tone-amber" role="alert">
      <span aria-hidden="true">↻</span> Live updates interrupted — reconnecting to Semaforo…
    </p>
  );
}
