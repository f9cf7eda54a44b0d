/**
 * The engine: the one object every face (tray app, CLI, server) uses, composed of its parts
 * (electron/core/engine/): task operations, schedule operations, and a runner (dispatcher,
 * scheduler, retention, file guard). Nothing happens at import time: `createEngine` is handed the
 * world (where the queue is, clock, logger, handlers) and opens the store through `openStore`.
 * Inputs arrive parsed by the face (docs/ARCHITECTURE.md, "Validation").
 */
import { systemClock } from './clock.ts';
import { ChangeCoalescer, type ChangeListener } from './events.ts';
import { builtinHandlers } from './handlers/builtin.ts';
import { HandlerRegistry } from './handlers/registry.ts';
import { silentLogger } from './logger.ts';
import { openStore } from './store/open-store.ts';
import { assertTrusted } from './trust/file-trust.ts';
import type { TaskStore } from './store/task-store.ts';
import { newWorkerIdentity } from './worker-identity.ts';
import { resolveConfig, type EngineOptions } from './engine/config.ts';
import type { EngineCore } from './engine/core.ts';
import { Runner } from './engine/runner.ts';
import type { AlarmUpdate } from './schedule/alarm-watch.ts';
import { createScheduleOperations, type ScheduleOperations } from './engine/schedule-operations.ts';
import { createTaskOperations, type TaskOperations } from './engine/task-operations.ts';
import { readMachine, type MachineReading } from './machine/readings.ts';

export type { EngineOptions };

export interface Engine extends TaskOperations, ScheduleOperations {
  readonly registry: HandlerRegistry;
  readonly store: TaskStore;
  onChange(listener: ChangeListener): () => void;
  /**
   * Reports other processes' writes as change events even while this engine does not dispatch
   * (a dispatcher does this itself), e.g. for `serve --no-work`. Returns a function that stops it.
   */
  watchExternalChanges(): () => void;
  /**
   * Throws a StorageError naming the queue and the reason unless this process can write it.
   * A SQLite connection opened while the file was read-only stays read-only even once it is writable.
   */
  checkWritable(): void;
  /**
   * Calls `listener` with one line if dispatching stopped because the database file was deleted
   * or replaced under this process (see db-file-guard.ts). Returns a function that unsubscribes.
   */
  onFault(listener: (message: string) => void): () => void;
  /**
   * Calls `listener` when schedules' alarms change while this process dispatches (it runs the
   * scheduler): with every alarm that holds and those newly raised. Returns an unsubscribe.
   */
  onScheduleAlarms(listener: (update: AlarmUpdate) => void): () => void;
  /** This machine's readings for the machine gates, as this engine's dispatcher takes them. */
  machineReading(): MachineReading;
  /** Starts dispatching in this process. */
  start(): void;
  readonly dispatching: boolean;
  /** Resolves when this process runs nothing and has written every finish. */
  whenIdle(): Promise<void>;
  /** Graceful: stop claiming, wait for running tasks up to `deadlineMs`, release the rest. */
  stop(deadlineMs?: number): Promise<void>;
  /** stop() and close the store. */
  close(deadlineMs?: number): Promise<void>;
}

/** Opens the queue (options.file, or options.store as given) and builds the engine on it. */
export async function createEngine(options: EngineOptions): Promise<Engine> {
  const config = resolveConfig(options, { clock: systemClock, logger: silentLogger });
  if (!options.store && !options.file) throw new Error('createEngine needs a file or a store');
  const { logger } = config;
  // Once per distinct message: a move that cannot be written is retried every second.
  let backgroundError = '';
  // Its tasks run as this user: refuse a queue file another user could have written.
  // Its -wal or -journal too: SQLite replays one found beside the file into it at open, so one
  // planted in a shared folder such as /tmp would rewrite the queue.
  if (!options.store && !/^(:|file:|[a-z][a-z0-9+.-]*:\/\/)/i.test(options.file!))
    for (const suffix of ['', '-wal', '-shm', '-journal'])
      assertTrusted(options.file! + suffix, suffix ? `queue's ${suffix} file` : 'queue file');
  const store =
    options.store ??
    (await openStore(options.file!, {
      sqlite: options.sqlite,
      existingOnly: options.existingOnly,
      watchIntervalMs: config.pollIntervalMs,
      onBackgroundError: (message) => {
        if (message !== backgroundError) logger.error((backgroundError = message));
      },
      // Polling instead of watching works, only slower: for `-v`, not for every cron mail.
      onNotice: (message) => logger.info(message),
    }));

  // A store that drains best with another batch says so (a server's round trips per tick).
  if (options.claimBatch === undefined && store.claimBatch !== undefined)
    config.claimBatch = store.claimBatch;

  const registry = new HandlerRegistry();
  // A handler given for a built-in kind replaces it (e.g. `run` runs `shell` with the caller's stdio).
  const given = new Set((options.handlers ?? []).map((h) => h.kind));
  for (const h of builtinHandlers()) if (!given.has(h.kind)) registry.register(h);
  for (const h of options.handlers ?? []) registry.register(h);
  for (const h of options.userHandlers ?? []) registry.register(h, 'user');

  const changes = new ChangeCoalescer(config.eventIntervalMs);
  const worker = newWorkerIdentity(config.workerLabel);
  const tasksChanged = (ids: readonly number[]) => {
    changes.add(ids);
    if (ids.length) runner.wake();
  };
  const runner = new Runner({ store, registry, config, worker, changes, tasksChanged });
  const core: EngineCore = {
    store,
    clock: config.clock,
    registry,
    reservedFor: config.privateWorker ? worker : null,
    tasksChanged,
    limitsChanged: () => {
      changes.touch();
      runner.wake();
    },
    schedulesChanged: () => {
      changes.touch();
      runner.scheduleChanged();
    },
    cancelRequested: (ids) => runner.abortCancelled(ids),
  };

  let closed = false;
  const engine: Engine = {
    ...createTaskOperations(core),
    ...createScheduleOperations(core),
    registry,
    store,
    onChange: (listener) => changes.subscribe(listener),
    watchExternalChanges: () => runner.watchExternalChanges(),
    checkWritable: () => store.checkWritable?.(),
    onFault: (listener) => runner.onFault(listener),
    onScheduleAlarms: (listener) => runner.onScheduleAlarms(listener),
    get dispatching() {
      return runner.dispatching;
    },
    machineReading: config.readMachine ?? (() => readMachine()),
    start() {
      if (closed) throw new Error('engine is closed');
      runner.start();
    },
    whenIdle: () => runner.whenIdle(),
    stop: (deadlineMs) => runner.stop(deadlineMs),
    async close(deadlineMs) {
      if (closed) return;
      await runner.stop(deadlineMs);
      closed = true;
      changes.close();
      await store.close();
    },
  };
  return engine;
}
