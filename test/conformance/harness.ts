/**
 * What every conformance test imports: a fresh queue on a backend (closed and deleted after the
 * test), the backends, and the task, claim and finish shorthands of shapes.ts.
 */
import { afterEach, it } from 'vitest';
import type { Backend, KnownDefect, Store } from './backends.ts';

export { backends } from './backends.ts';
export type { Backend, Store } from './backends.ts';
export * from './shapes.ts';

export interface Queue {
  store: Store;
  /** where the queue lives, for a child process to connect to */
  location: string;
  /** another connection on the same queue, as another process has */
  connect(): Promise<Store>;
}

const open: Store[] = [];
const queues: { destroy(): Promise<void> }[] = [];

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const q of queues.splice(0)) await q.destroy();
});

/** A fresh, empty queue; room for 10 at once (the default global limit of 3 would cut most tests). */
export async function freshQueue(backend: Backend, globalConcurrency = 10): Promise<Queue> {
  const q = await backend.create();
  queues.push(q);
  const connect = async () => {
    const s = await backend.connect(q.location);
    open.push(s);
    return s;
  };
  const store = await connect();
  await store.updateSettings({ globalConcurrency });
  return { store, location: q.location, connect };
}

/** `it`, or `it.fails` on a backend that lists `defect` among its known defects. */
export function itUnless(backend: Backend, defect: KnownDefect): typeof it | typeof it.fails {
  return backend.knownDefects?.includes(defect) ? it.fails : it;
}

/** The CLI's `retry --failed [--group] [--kind]`: every failed task that matches, in id order. */
export async function retryFailed(
  store: Store,
  filter: { group?: string; kind?: string },
  now: number,
): Promise<number[]> {
  const out = await store.actOnMatching('retry', { ...filter, status: ['failed'] }, now, {
    max: Number.MAX_SAFE_INTEGER,
  });
  return out.ids;
}
