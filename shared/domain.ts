/**
 * Semaforo's domain types, shared by the engine, the CLI, the server and the renderer.
 *
 * Glossary (used with these meanings in code, UI and README):
 * - task: one unit of work in the queue: a kind, a payload and the bookkeeping around it.
 * - kind: which handler runs a task (`sleep`, `shell`, `http`, ...).
 * - group: a named lane with its own concurrency limit, rate limit and pause switch
 *   (e.g. `vendor` for everything that calls one vendor API). Every task belongs to one.
 * - attempt: one run of a task by a handler. A task has at most `maxAttempts` of them.
 * - claim: the atomic step in which a dispatcher takes ready tasks for itself, checking every limit.
 * - lease: the time-bounded right of one worker to run a claimed task; renewed while it runs,
 *   reclaimed by anyone once it expires or its owner process is gone.
 * - worker: one dispatcher in one process (the tray app, `semaforo work`, a `semaforo run`).
 * - drain: run until nothing is pending, waiting or running.
 * - dead letter: the `failed` status: out of attempts or failed permanently; kept until the user acts.
 *
 * Times are milliseconds since the Unix epoch, durations are milliseconds.
 */
import type { ScheduleAlarms, ScheduleHealth } from './schedule-alarms.ts';

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

/** A named resource (`semaforo resource set main-db --capacity 1`) and who holds and wants it. */
export interface ResourceInfo {
  name: string;
  capacity: number;
  /** the weight running tasks hold */
  held: number;
  holders: { taskId: number; weight: number }[];
  /** waiting tasks that name it, in claim order (the first RESOURCE_WAITERS_SHOWN) */
  waiters: { taskId: number; weight: number }[];
  /** how many waiting tasks name it in all */
  waiting: number;
  /** waiting tasks passed over often enough that capacity is held back for them (claim-plan) */
  reservedFor: number[];
}

/**
 * A machine gate: no new start (in the whole queue, or one group) while the machine the
 * dispatcher runs on is too loaded, short of memory, on battery or in use (the tray app). Judged
 * by each dispatcher on its own machine (electron/core/policy/gate-policy.ts).
 */
export interface GateConfig {
  /** the group it holds; null: every group */
  group: string | null;
  /** the 1-minute load average per core above which it closes; null: not judged */
  maxLoad: number | null;
  /** available memory in bytes below which it closes; null: not judged */
  minFreeMemory: number | null;
  /** closed while the machine runs on battery */
  onAc: boolean;
  /**
   * open only once the user has been idle (no keyboard or mouse) this long, in ms; null: not
   * judged. Only the tray app can read idle time: elsewhere this part stays open.
   */
  whenIdleMs: number | null;
  /** while closed, running shell tasks of its scope on that machine are stopped (SIGSTOP) */
  pauseRunning: boolean;
}

/** A machine gate as the machine of the process asked judges it now, reading included. */
export interface GateState {
  group: string | null;
  closed: boolean;
  /** "closed: user idle 12s < 5m", "open", "open (cannot read the idle time …)" */
  state: string;
}

/** How many waiters of a resource `stats` lists. */
export const RESOURCE_WAITERS_SHOWN = 20;

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

/** A rate limit: at most `limit` task starts in any window of `periodMs`. */
export interface RateLimit {
  limit: number;
  periodMs: number;
}

export interface GroupInfo {
  name: string;
  /** Max tasks of this group running at once across all workers; null: only the global limit. */
  concurrency: number | null;
  rate: RateLimit | null;
  paused: boolean;
  /** Set after a 429/503: no task of the group starts before this time. */
  blockedUntil: number | null;
  counts: StatusCounts;
  /** Task starts in the current rate window (0 when the group has no rate limit). */
  rateUsed: number;
  /** Starts allowed at once within `rate`; null: evenly spaced (one every period / limit). */
  burst: number | null;
  /** When the rate window has room again, if it has none now (null otherwise). */
  rateFreeAt: number | null;
  /** What an adaptive group learned under its caps (concurrency, rate); null: not adaptive. */
  adaptive: AdaptiveInfo | null;
}

/** An adaptive group's effective limits at one time. */
export interface LimitPoint {
  at: number;
  /** effective concurrency (whole tasks), null: no concurrency cap */
  concurrency: number | null;
  /** effective starts per period of the rate cap (fractional), null: no rate cap */
  rate: number | null;
}

export interface AdaptiveInfo {
  /** what the claim uses now: at most the caps */
  concurrency: number | null;
  rate: number | null;
  /** the rate the vendor last said no at, while remembered */
  ceiling: number | null;
  lastThrottleAt: number | null;
  /** the vendor's words of the last throttle (the attempt's error) */
  lastThrottle: string | null;
  /** the effective limits over time, oldest first (the last ADAPTIVE_HISTORY points) */
  history: LimitPoint[];
}

/** How many points of an adaptive group's history are kept. */
export const ADAPTIVE_HISTORY = 120;

export type StatusCounts = Record<TaskStatus, number>;

export interface QueueSettings {
  /** Max tasks running at once across every worker on this database. */
  globalConcurrency: number;
  paused: boolean;
  /** Finished tasks older than this many days are purged by retention. */
  retentionDays: number;
  /** Desktop notifications when a task fails for good. */
  notifications: NotificationSettings;
  /** POST a JSON description of each task that fails for good here (through the queue); null: off. */
  failureWebhook: string | null;
  /**
   * What a commit waits for. 'results' (default): every result and operator action is on disk
   * before it is reported; an enqueue survives any process crash but not a power cut within
   * moments of it. 'full': every commit, enqueues included, waits for the disk.
   */
  durability: Durability;
}

export const DURABILITIES = ['results', 'full'] as const;
export type Durability = (typeof DURABILITIES)[number];

export interface NotificationSettings {
  enabled: boolean;
  /** only failures in these groups; null: every group */
  groups: string[] | null;
}

export interface Stats {
  counts: StatusCounts;
  settings: QueueSettings;
  groups: GroupInfo[];
  resources: ResourceInfo[];
  gates: GateConfig[];
  recentFailures: Task[];
}

export interface MetricsRow {
  /** The kind or group the row describes. */
  key: string;
  finished: number;
  done: number;
  failed: number;
  /** finished tasks per second over the window */
  throughput: number;
  failureRate: number;
  /** mean duration of those that started; null when none did */
  avgMs: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface Metrics {
  windowMs: number;
  byKind: MetricsRow[];
  byGroup: MetricsRow[];
}

/** The spans the Overview's charts show: the last hour, day or week. */
export const SERIES_RANGES = ['1h', '24h', '7d'] as const;
export type SeriesRange = (typeof SERIES_RANGES)[number];

/** One line of a chart: throughput and failure rate per bucket, oldest first. */
export interface SeriesLine {
  /** tasks finished (done or failed) per `per` in each bucket */
  rate: number[];
  /** failed / (done + failed) in percent, null where nothing finished */
  failurePercent: (number | null)[];
  finished: number;
  failed: number;
}

/** The Overview's charts over a range, in total and per group (electron/core/policy/throughput-series.ts). */
export interface ThroughputSeries extends SeriesLine {
  range: SeriesRange;
  bucketMs: number;
  /** what `rate` counts per: a minute over the last hour, an hour over a day or a week */
  per: 'minute' | 'hour';
  /** bucket end times, epoch seconds (the chart's x axis) */
  times: number[];
  /** each group that finished any in the range, the most finished first */
  groups: (SeriesLine & { group: string })[];
}

/** A group's waits and durations, for the Groups screen (electron/core/policy/group-stats.ts). */
export interface GroupStats {
  group: string;
  /** pending or retrying tasks that are due */
  waiting: number;
  /** when the longest-due of them became due; null when none waits */
  oldestWaitingSince: number | null;
  /** done or failed in the last hour */
  finished: number;
  /** their mean and 95th-percentile run time; null when none of them ran */
  avgMs: number | null;
  p95Ms: number | null;
}

/** A running task as the Workers screen lists it under its lease owner. */
export interface LeasedTask {
  id: number;
  name: string;
  group: string;
  kind: string;
  startedAt: number | null;
  leaseExpiresAt: number | null;
}

/** One lease owner (a worker in some process) and the running tasks it holds. */
export interface WorkerLeases {
  /** the worker id, as in `Task.leaseOwner` */
  id: string;
  /** null for rows written by a version that did not record them */
  host: string | null;
  pid: number | null;
  /** when it started the oldest task it still holds */
  since: number | null;
  /** oldest start first */
  tasks: LeasedTask[];
}

export interface TaskPage {
  tasks: Task[];
  total: number;
}

export function emptyCounts(): StatusCounts {
  return { pending: 0, running: 0, retrying: 0, done: 0, failed: 0, cancelled: 0 };
}

/** What a schedule does about due times that passed while no scheduler ran (the app was closed). */
export const MISSED_POLICIES = ['skip', 'once', 'all'] as const;
export type MissedPolicy = (typeof MISSED_POLICIES)[number];
/** `skip`: no new run while the previous run of the same schedule is still pending or running. */
export const OVERLAP_POLICIES = ['allow', 'skip'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
/** At most this many catch-up runs under the `all` policy. */
export const MAX_CATCH_UP = 100;

/** The task a schedule enqueues each time it comes due. */
export interface TaskTemplate {
  kind: string;
  /** the task's name; null: the schedule's name */
  name: string | null;
  group: string;
  priority: number;
  maxAttempts: number;
  timeout: number | null;
  payload: JsonValue;
  /** named resources each run holds (absent: none) */
  uses?: ResourceUse[];
}

/** A recurring schedule: a cron expression (in a zone) or an interval, enqueuing a task template. */
export interface Schedule {
  id: number;
  name: string;
  /** 5-field cron expression, or null for an interval schedule */
  cron: string | null;
  /** IANA zone of the cron expression; null: the machine's local zone */
  timezone: string | null;
  /** interval in milliseconds, or null for a cron schedule */
  everyMs: number | null;
  task: TaskTemplate;
  missed: MissedPolicy;
  overlap: OverlapPolicy;
  enabled: boolean;
  /** the next due time; null when paused or when the expression never comes due again */
  nextDueAt: number | null;
  /** the due time of the last run enqueued */
  lastDueAt: number | null;
  lastEnqueuedAt: number | null;
  lastTaskId: number | null;
  /** status of the last task, if it still exists */
  lastTaskStatus: TaskStatus | null;
  /** when the last task's latest attempt started, and when it ended (null: not yet, or gone) */
  lastTaskStartedAt: number | null;
  lastTaskFinishedAt: number | null;
  /** what each run is expected to do (the dead-man's switch) */
  alarms: ScheduleAlarms;
  /** the schedule judged against its alarms and its last run, now */
  health: ScheduleHealth;
  /** due times not run because the previous run was still going (overlap `skip`) */
  skippedOverlap: number;
  /** due times dropped because they passed while no scheduler ran (missed policy) */
  skippedMissed: number;
  createdAt: number;
  updatedAt: number;
  /** the next five due times, as the UI shows them */
  upcoming: number[];
}
