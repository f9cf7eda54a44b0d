/** What a Dispatcher is given: the store, the kinds, the clocks, and whom to tell of changes. */
import type { Clock, MonotonicClock } from '../clock.ts';
import type { DispatchConfig } from '../engine/config.ts';
import type { HandlerRegistry } from '../handlers/registry.ts';
import type { Logger } from '../logger.ts';
import type { MachineReading } from '../machine/readings.ts';
import type { LeaseHolder, TaskStore, WorkerIdentity } from '../store/task-store.ts';

export interface DispatcherOptions {
  store: TaskStore;
  registry: HandlerRegistry;
  /** the wall clock */
  clock: Clock;
  /** measures this process's own waits (default `monotonicMs()`) */
  monotonic?: MonotonicClock;
  worker: WorkerIdentity;
  logger: Logger;
  /** leases, batch sizes, backoff: resolved once by the engine (engine/config.ts) */
  config: DispatchConfig;
  /** called after each commit with the ids whose state changed (results: once on the disk) */
  onChange: (ids: number[]) => void;
  /** called when another process changed the queue */
  onExternalChange: () => void;
  /** is this lease owner a process on this machine that is gone? */
  isOwnerDead: (owner: { id: string; pid: number | null; host: string | null }) => boolean;
  /** whether a lease owner's process still runs on this machine (default: by its pid) */
  isOwnerRunning?: (owner: LeaseHolder) => boolean;
  /** this machine's readings for the machine gates (default: /proc and /sys) */
  readMachine?: () => MachineReading;
  /** one line for a failed store call, naming the queue and the condition (default `String(err)`) */
  describeError?: (err: unknown) => string;
}
