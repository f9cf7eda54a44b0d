/**
 * The queue as `stats` reads it: its settings, its groups (limits, and what an adaptive group
 * learned), named resources and machine gates.
 */
import type { StatusCounts, Task } from './task.ts';

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
