/**
 * Every engine setting, its default and its check, in one place. The faces pass what they know
 * (`EngineOptions`); `resolveConfig` fills in the rest once and rejects a value out of range with
 * one line naming the option, before anything is opened.
 */
import type { MachineReading } from '../machine/readings.ts';
import type { Clock, MonotonicClock } from '../clock.ts';
import type { Handler } from '../handlers/registry.ts';
import type { Logger } from '../logger.ts';
import { DEFAULT_BACKOFF, type BackoffPolicy } from '../policy/backoff.ts';
import type { OpenStoreOptions } from '../store/open-store.ts';
import type { TaskStore } from '../store/task-store.ts';

export interface EngineOptions {
  /** where the queue lives (a file path today); ignored when `store` is given */
  file?: string;
  /** an already opened store (tests, wrappers); the engine closes it on close() */
  store?: TaskStore;
  /** the backend's own settings, passed to openStore */
  sqlite?: OpenStoreOptions['sqlite'];
  /** a queue on a server must exist already (a command that only reads); passed to openStore */
  existingOnly?: boolean;
  /** @defaultValue the system clock */
  clock?: Clock;
  /** measures the dispatcher's own waits across wall-clock steps; @defaultValue `monotonicMs()` */
  monotonic?: MonotonicClock;
  /** @defaultValue silent */
  logger?: Logger;
  /** this machine's readings for the machine gates; @defaultValue /proc and /sys (tests give fakes) */
  readMachine?: () => MachineReading;
  /** extra kinds besides the built-in ones (electron/core/handlers/builtin.ts) */
  handlers?: Handler<unknown>[];
  /** kinds loaded from the user's handler folder; listed with source 'user' */
  userHandlers?: Handler<unknown>[];
  /** shown in lease owners and history, e.g. 'tray', 'work', 'run'; @defaultValue 'worker' */
  workerLabel?: string;
  /** how long a claim holds a task without renewal; renewed every third of it. @defaultValue 30000 */
  leaseMs?: number;
  /**
   * How often the store is asked whether another process committed (a dispatcher then ticks; a
   * face that does not dispatch reports a change event) where it cannot be told at once (SQLite:
   * the -wal file cannot be watched, e.g. on a network file system). @defaultValue 20
   */
  pollIntervalMs?: number;
  /** how often leases of gone or stalled workers are looked for. @defaultValue 2000 */
  reapIntervalMs?: number;
  /** most tasks this process runs at once (the global and group limits apply on top). @defaultValue no limit */
  maxInFlight?: number;
  /**
   * Most tasks claimed in one transaction. Each commit that writes results waits for one fsync, so
   * a bigger batch shares it among more tasks; the write lock is still held only a few ms.
   * @defaultValue the store's `claimBatch`, else 128
   */
  claimBatch?: number;
  /** how long an aborted handler may take to stop before its attempt is ended without it. @defaultValue 5000 */
  abortGraceMs?: number;
  /** @defaultValue DEFAULT_BACKOFF (policy/backoff.ts) */
  backoff?: BackoffPolicy;
  /** the jitter source of backoffs; @defaultValue Math.random */
  random?: () => number;
  /** how often change events may reach listeners. @defaultValue 200 (5 per second) */
  eventIntervalMs?: number;
  /**
   * While dispatching, run the store's integrity check (SQLite: PRAGMA quick_check) this often and
   * stop dispatching into a damaged queue; 0: never. @defaultValue 600000 (10 min)
   */
  integrityCheckIntervalMs?: number;
  /** run the retention purge this often while dispatching; 0: never. @defaultValue 3600000 (hourly) */
  retentionIntervalMs?: number;
  /**
   * A private worker (`semaforo run`): every task this engine enqueues is reserved for its own
   * dispatcher, which claims only those, under the same limits as everyone else.
   * @defaultValue false
   */
  privateWorker?: boolean;
  /** fire due schedules while dispatching. @defaultValue true, except for a private worker */
  schedules?: boolean;
  /** the longest wait between schedule checks. @defaultValue 1000 */
  scheduleIntervalMs?: number;
  /**
   * While dispatching, how often to check that the database file (and its -wal and -shm) is still
   * the one this process opened, not deleted or replaced: three stat calls, and the shorter, the
   * less another process can pick up a lost file's -wal meanwhile. 0: never. @defaultValue 500
   */
  fileCheckIntervalMs?: number;
  /** the longest a backoff is held against a forward wall-clock step. @defaultValue the backoff cap */
  maxHoldMs?: number;
  /**
   * Share one fsync among the ticks of a drain (dispatch/group-commit.ts): results are written
   * without waiting for the disk and reported once a later sync is done. Off by default: another
   * process (a reader, the dashboard, another dispatcher) can see a result up to one sync before
   * it is on disk, which the "results" durability does not allow (docs/ARCHITECTURE.md).
   * @defaultValue false
   */
  groupCommit?: boolean;
}

type Resolved =
  'file' | 'store' | 'sqlite' | 'existingOnly' | 'handlers' | 'userHandlers' | 'monotonic' | 'readMachine';

/** EngineOptions with every default filled in. */
export type EngineConfig = Required<Omit<EngineOptions, Resolved>> & Pick<EngineOptions, Resolved>;

/** What the dispatcher reads of the configuration. */
export type DispatchConfig = Pick<
  EngineConfig,
  | 'leaseMs'
  | 'reapIntervalMs'
  | 'maxInFlight'
  | 'claimBatch'
  | 'abortGraceMs'
  | 'backoff'
  | 'random'
  | 'maxHoldMs'
  | 'groupCommit'
> & {
  /** claim only tasks reserved for this worker (a `semaforo run`) */
  reservedOnly: boolean;
};

/** Fills in every default and checks every number; throws a RangeError naming the option. */
export function resolveConfig(
  options: EngineOptions,
  defaults: Pick<EngineConfig, 'clock' | 'logger'>,
): EngineConfig {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const privateWorker = options.privateWorker ?? false;
  const config: EngineConfig = {
    ...options,
    clock: options.clock ?? defaults.clock,
    logger: options.logger ?? defaults.logger,
    workerLabel: options.workerLabel ?? 'worker',
    leaseMs: options.leaseMs ?? 30_000,
    pollIntervalMs: options.pollIntervalMs ?? 20,
    reapIntervalMs: options.reapIntervalMs ?? 2000,
    maxInFlight: options.maxInFlight ?? Number.POSITIVE_INFINITY,
    claimBatch: options.claimBatch ?? 128,
    abortGraceMs: options.abortGraceMs ?? 5000,
    backoff,
    random: options.random ?? Math.random,
    eventIntervalMs: options.eventIntervalMs ?? 200,
    integrityCheckIntervalMs: options.integrityCheckIntervalMs ?? 600_000,
    retentionIntervalMs: options.retentionIntervalMs ?? 3600_000,
    privateWorker,
    schedules: options.schedules ?? !privateWorker,
    scheduleIntervalMs: options.scheduleIntervalMs ?? 1000,
    fileCheckIntervalMs: options.fileCheckIntervalMs ?? 500,
    maxHoldMs: options.maxHoldMs ?? backoff.capMs,
    groupCommit: options.groupCommit ?? false,
  };
  const atLeast = (min: number, names: readonly (keyof EngineConfig)[]) => {
    for (const name of names) {
      const v = config[name];
      if (typeof v !== 'number' || Number.isNaN(v) || v < min)
        throw new RangeError(`engine option ${name} must be a number >= ${min} (got ${String(v)})`);
    }
  };
  atLeast(1, [
    'leaseMs',
    'pollIntervalMs',
    'reapIntervalMs',
    'maxInFlight',
    'claimBatch',
    'scheduleIntervalMs',
  ]);
  atLeast(0, [
    'abortGraceMs',
    'eventIntervalMs',
    'integrityCheckIntervalMs',
    'retentionIntervalMs',
    'fileCheckIntervalMs',
    'maxHoldMs',
  ]);
  return config;
}
