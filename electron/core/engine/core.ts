/**
 * What the engine's parts share: the store, the clock, the kinds, and how a part says that
 * something changed (listeners hear it, the dispatcher or scheduler looks again).
 */
import type { Clock } from '../clock.ts';
import type { HandlerRegistry } from '../handlers/registry.ts';
import type { TaskStore, WorkerIdentity } from '../store/task-store.ts';

export interface EngineCore {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly registry: HandlerRegistry;
  /** every task enqueued here is reserved for this worker (a `semaforo run`), else null */
  readonly reservedFor: WorkerIdentity | null;
  /** these tasks changed here: tell listeners, and let the dispatcher claim */
  tasksChanged(ids: readonly number[]): void;
  /** settings or a group changed: tell listeners, and let the dispatcher claim */
  limitsChanged(): void;
  /** a schedule was added or changed: tell listeners, and let the scheduler look again */
  schedulesChanged(): void;
  /** the user asked to cancel these running tasks: abort the ones running here now */
  cancelRequested(ids: readonly number[]): void;
}
