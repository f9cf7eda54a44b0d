/** A task: its statuses, shape and history, and what enqueue and a page of the list return. */

/** The statuses a task moves through. These exact strings are used in the database, JSON and UI. */
export const TASK_STATUSES = ['pending', 'running', 'retrying', 'done', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Statuses a task can still leave by itself (it is not finished). */
export const ACTIVE_STATUSES = ['pending', 'running', 'retrying'] as const satisfies readonly TaskStatus[];
/** Statuses in which a task has ended; only the user or retention moves it on. */
export const FINISHED_STATUSES = ['done', 'failed', 'cancelled'] as const satisfies readonly TaskStatus[];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface Task {
  id: number;
  kind: string;
  name: string;
  group: string;
  /** 0 runs first; FIFO within one priority. */
  priority: number;
  status: TaskStatus;
  /** Attempts that counted against `maxAttempts` (a Retry-After reschedule does not). */
  attempts: number;
  maxAttempts: number;
  payload: JsonValue;
  result: JsonValue | null;
  /** The last error, bounded in size. */
  error: string | null;
  /** Earliest time the task may start (its delay, or the end of its backoff). */
  runAt: number;
  /** Per-attempt time limit; null means none. */
  timeout: number | null;
  unique: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** 0..1 as last reported by the running handler, or null. */
  progress: number | null;
  /** The worker holding the lease while `running`. */
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  /** The user asked to cancel this running task; its worker is stopping it. */
  cancelRequested: boolean;
  /** Reschedules caused by Retry-After so far (bounded by their own cap). */
  retryAfterCount: number;
  /** Held for the `semaforo run` process that enqueued it (it runs the command itself); else null. */
  reservedFor: string | null;
  /** The schedule that enqueued it, or null. */
  scheduleId: number | null;
  /** Named resources it holds while it runs, by name; empty: none. */
  uses: ResourceUse[];
}

/** A share of a named resource a task holds while it runs. */
export interface ResourceUse {
  resource: string;
  /** how much of the capacity (1 unless given: `cpu:2`) */
  weight: number;
}

/** How an attempt ended, or what an operator did. */
export type HistoryOutcome =
  | 'running'
  | 'done'
  | 'failed'
  | 'retry'
  | 'retry-after'
  | 'timeout'
  | 'cancelled'
  | 'lost'
  | 'released'
  | 'retried'
  | 'priority';

/** One row of a task's history: an attempt (`type: 'attempt'`) or an operator action. */
export interface HistoryEntry {
  id: number;
  taskId: number;
  type: 'attempt' | 'action';
  /** The attempt number (1-based) for attempts; the attempt count at the time for actions. */
  attempt: number;
  startedAt: number;
  endedAt: number | null;
  outcome: HistoryOutcome;
  error: string | null;
  /** The tail of what the handler logged, bounded in size. */
  output: string | null;
  worker: string | null;
  /** ms the attempt spent stopped by a machine gate's --pause-running (not counted to its timeout) */
  pausedMs: number | null;
}

/** What enqueue returns: the task, and whether it is new (false: its unique key was held). */
export interface EnqueueResult {
  task: Task;
  created: boolean;
}

/** A task kind a worker can run, as the faces list it (the new-task form, `semaforo kinds`). */
export interface KindInfo {
  kind: string;
  description: string;
  /** built into Semaforo, or loaded from the user's handler folder */
  source: 'builtin' | 'user';
}

export interface TaskWithHistory extends Task {
  history: HistoryEntry[];
}

export type StatusCounts = Record<TaskStatus, number>;

export interface TaskPage {
  tasks: Task[];
  total: number;
}

export function emptyCounts(): StatusCounts {
  return { pending: 0, running: 0, retrying: 0, done: 0, failed: 0, cancelled: 0 };
}
