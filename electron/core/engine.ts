/**
 * The engine: the one object every face (tray app, CLI, server) uses. It validates every input
 * with the shared schemas, owns the store and, once started, a dispatcher. Nothing happens at
 * import time: `createEngine` is handed the world (file, clock, logger, handlers).
 */
import type {
  GroupInfo,
  Metrics,
  QueueSettings,
  Stats,
  Task,
  TaskPage,
  TaskWithHistory,
} from '../../shared/domain.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import {
  LIMITS,
  durationSchema,
  groupNameSchema,
  groupUpdateSchema,
  listQuerySchema,
  parseInput,
  prioritySchema,
  retryFilterSchema,
  settingsUpdateSchema,
  taskIdSchema,
  taskSpecSchema,
  type GroupUpdate,
  type ListQuery,
  type RetryFilter,
  type SettingsUpdate,
} from '../../shared/schemas.ts';
import { systemClock, type Clock } from './clock.ts';
import { Dispatcher, type DispatcherOptions } from './dispatch/dispatcher.ts';
import { ChangeCoalescer, type ChangeListener } from './events.ts';
import { HandlerRegistry, type Handler } from './handlers/registry.ts';
import { builtinHandlers } from './handlers/builtin.ts';
import { silentLogger, type Logger } from './logger.ts';
import type { BackoffPolicy } from './policy/backoff.ts';
import type { OpenOptions } from './store/sqlite/open.ts';
import { SqliteTaskStore } from './store/sqlite/sqlite-store.ts';
import type { EnqueueResult, NewTask, TaskStore } from './store/task-store.ts';
import { isOwnerProcessGone, newWorkerIdentity } from './worker-identity.ts';

const DAY = 24 * 3600_000;

export interface EngineOptions {
  /** the SQLite file; ignored when `store` is given */
  file?: string;
  store?: TaskStore;
  sqlite?: OpenOptions;
  clock?: Clock;
  logger?: Logger;
  /** extra kinds besides the built-in ones (electron/core/handlers/builtin.ts) */
  handlers?: Handler<unknown>[];
  /** kinds loaded from the user's handler folder; listed with source 'user' */
  userHandlers?: Handler<unknown>[];
  /** shown in lease owners and history, e.g. 'tray', 'work', 'run' */
  workerLabel?: string;
  leaseMs?: number;
  pollIntervalMs?: number;
  reapIntervalMs?: number;
  maxInFlight?: number;
  claimBatch?: number;
  abortGraceMs?: number;
  backoff?: BackoffPolicy;
  random?: () => number;
  /** how often change events may reach listeners (default 200 ms: 5 per second) */
  eventIntervalMs?: number;
  /** run the retention purge this often while the dispatcher runs (default hourly; 0: never) */
  retentionIntervalMs?: number;
  /**
   * A private worker (`semaforo run`): every task this engine enqueues is reserved for its own
   * dispatcher, which claims only those, under the same limits as everyone else.
   */
  privateWorker?: boolean;
}

export interface Engine {
  readonly registry: HandlerRegistry;
  readonly store: TaskStore;
  enqueue(spec: unknown): EnqueueResult;
  enqueueMany(specs: unknown): EnqueueResult[];
  getTask(id: unknown): TaskWithHistory;
  listTasks(query?: unknown): TaskPage;
  stats(recentFailures?: number): Stats;
  metrics(windowMs?: number): Metrics;
  /** Tasks that failed for good after a (finishedAt, id) cursor, oldest first (for notifiers). */
  failedSince(after: { at: number; id: number }, limit?: number): Task[];
  retry(ids: unknown): number[];
  retryFailed(filter?: unknown): number[];
  cancel(ids: unknown): { cancelled: number[]; requested: number[] };
  remove(ids: unknown): number[];
  setPriority(id: unknown, priority: unknown): Task;
  updateGroup(name: unknown, update: unknown): GroupInfo;
  updateSettings(update: unknown): QueueSettings;
  pause(group?: unknown): void;
  resume(group?: unknown): void;
  /** Deletes finished tasks that ended more than `olderThanMs` ago; returns how many. */
  purge(olderThanMs?: unknown): number;
  onChange(listener: ChangeListener): () => void;
  /**
   * Reports other processes' writes as change events even while this engine does not dispatch
   * (a dispatcher does this itself), e.g. for `serve --no-work`. Returns a function that stops it.
   */
  watchExternalChanges(intervalMs?: number): () => void;
  /** Starts dispatching in this process. */
  start(): void;
  readonly dispatching: boolean;
  /** Resolves when this process runs nothing and has written every finish. */
  whenIdle(): Promise<void>;
  /** Graceful: stop claiming, wait for running tasks up to `deadlineMs`, release the rest. */
  stop(deadlineMs?: number): Promise<void>;
  /** stop() and close the database. */
  close(deadlineMs?: number): Promise<void>;
}

export function createEngine(options: EngineOptions): Engine {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  if (!options.store && !options.file) throw new Error('createEngine needs a file or a store');
  const store = options.store ?? new SqliteTaskStore(options.file!, options.sqlite);
  const registry = new HandlerRegistry();
  // A handler given for a built-in kind replaces it (e.g. `run` runs `shell` with the caller's stdio).
  const given = new Set((options.handlers ?? []).map((h) => h.kind));
  for (const h of builtinHandlers()) if (!given.has(h.kind)) registry.register(h);
  for (const h of options.handlers ?? []) registry.register(h);
  for (const h of options.userHandlers ?? []) registry.register(h, 'user');
  const changes = new ChangeCoalescer(options.eventIntervalMs ?? 200);
  let dispatcher: Dispatcher | null = null;
  let retentionTimer: ReturnType<typeof setInterval> | null = null;
  let closed = false;
  const worker = newWorkerIdentity(options.workerLabel);
  const reservedFor = options.privateWorker ? worker : null;

  const ids = (input: unknown, field = 'ids'): number[] => {
    const list = Array.isArray(input) ? input : [input];
    if (list.length === 0)
      throw new ValidationError([{ path: field, message: 'must name at least one task id' }]);
    return list.map((id, i) => parseInput(taskIdSchema, id, `${field}[${i}]`));
  };

  const toNewTask = (spec: unknown, prefix: string): NewTask => {
    const s = parseInput(taskSpecSchema, spec, prefix);
    const payload = registry.parsePayload(s.kind, s.payload, prefix);
    const now = clock.now();
    return {
      kind: s.kind,
      name: s.name ?? s.kind,
      group: s.group ?? 'default',
      priority: s.priority ?? LIMITS.priority.default,
      payload: JSON.stringify(payload ?? {}),
      maxAttempts: s.maxAttempts ?? LIMITS.maxAttempts.default,
      runAt: s.runAt ?? now + (s.delay ?? 0),
      timeout: s.timeout ?? null,
      unique: s.unique ?? null,
      reservedFor,
    };
  };

  const changed = (list: readonly number[]) => {
    changes.add(list);
    if (list.length) dispatcher?.wake();
  };

  const purge = (olderThanMs: number) => store.purgeFinished(clock.now() - olderThanMs);

  const engine: Engine = {
    registry,
    store,
    enqueue(spec) {
      const [r] = store.enqueue([toNewTask(spec, '')], clock.now());
      changed([r!.task.id]);
      return r!;
    },
    enqueueMany(specs) {
      if (!Array.isArray(specs))
        throw new ValidationError([{ path: 'tasks', message: 'must be an array of task specs' }]);
      if (specs.length > LIMITS.batch) {
        throw new ValidationError([
          { path: 'tasks', message: `holds ${specs.length} tasks; at most ${LIMITS.batch} per batch` },
        ]);
      }
      // Validate all first: one bad spec writes nothing.
      const tasks = specs.map((s, i) => toNewTask(s, `tasks[${i}]`));
      const out = store.enqueue(tasks, clock.now());
      changed(out.map((r) => r.task.id));
      return out;
    },
    getTask(id) {
      const n = parseInput(taskIdSchema, id, 'id');
      const t = store.getTask(n);
      if (!t) throw new NotFoundError(`task ${n} does not exist`);
      return t;
    },
    listTasks(query = {}) {
      return store.listTasks(parseInput(listQuerySchema, query) as ListQuery);
    },
    stats(recentFailures = 5) {
      return store.stats(clock.now(), Math.max(0, Math.min(100, Number(recentFailures) || 0)));
    },
    failedSince(after, limit = 500) {
      return store.failedSince(after, Math.max(1, Math.min(5000, limit)));
    },
    metrics(windowMs = 3600_000) {
      const w = parseInput(durationSchema, windowMs, 'windowMs');
      return store.metrics(clock.now(), w);
    },
    retry(input) {
      const out = store.retry(ids(input), clock.now());
      changed(out);
      return out;
    },
    retryFailed(filter = {}) {
      const out = store.retryFailed(parseInput(retryFilterSchema, filter) as RetryFilter, clock.now());
      changed(out);
      return out;
    },
    cancel(input) {
      const out = store.cancel(ids(input), clock.now());
      dispatcher?.abortCancelled(out.requested);
      changed([...out.cancelled, ...out.requested]);
      return out;
    },
    remove(input) {
      const out = store.remove(ids(input));
      changed(out);
      return out;
    },
    setPriority(id, priority) {
      const t = store.setPriority(
        parseInput(taskIdSchema, id, 'id'),
        parseInput(prioritySchema, priority, 'priority'),
        clock.now(),
      );
      changed([t.id]);
      return t;
    },
    updateGroup(name, update) {
      const g = store.updateGroup(
        parseInput(groupNameSchema, name, 'group'),
        parseInput(groupUpdateSchema, update) as GroupUpdate,
      );
      changed([]);
      dispatcher?.wake();
      return g;
    },
    updateSettings(update) {
      const s = store.updateSettings(parseInput(settingsUpdateSchema, update) as SettingsUpdate);
      dispatcher?.wake();
      return s;
    },
    pause(group) {
      if (group === undefined) engine.updateSettings({ paused: true });
      else engine.updateGroup(group, { paused: true });
    },
    resume(group) {
      if (group === undefined) engine.updateSettings({ paused: false });
      else engine.updateGroup(group, { paused: false });
    },
    purge(olderThanMs) {
      const ms =
        olderThanMs === undefined
          ? store.settings().retentionDays * DAY
          : parseInput(durationSchema, olderThanMs, 'olderThan');
      return purge(ms);
    },
    onChange(listener) {
      return changes.subscribe(listener);
    },
    watchExternalChanges(intervalMs = 100) {
      let last = store.dataVersion();
      const timer = setInterval(() => {
        if (dispatcher || closed) return;
        const v = store.dataVersion();
        if (v !== last) changes.add([], true);
        last = v;
      }, intervalMs);
      timer.unref();
      return () => clearInterval(timer);
    },
    get dispatching() {
      return dispatcher !== null;
    },
    start() {
      if (closed) throw new Error('engine is closed');
      if (dispatcher) return;
      const dispatcherOptions: DispatcherOptions = {
        store,
        registry,
        clock,
        logger,
        worker,
        reservedOnly: options.privateWorker ?? false,
        onChange: (list) => changes.add(list),
        onExternalChange: () => changes.add([], true),
        isOwnerDead: isOwnerProcessGone,
        leaseMs: options.leaseMs,
        pollIntervalMs: options.pollIntervalMs,
        reapIntervalMs: options.reapIntervalMs,
        maxInFlight: options.maxInFlight,
        claimBatch: options.claimBatch,
        abortGraceMs: options.abortGraceMs,
        backoff: options.backoff,
        random: options.random,
      };
      dispatcher = new Dispatcher(dispatcherOptions);
      dispatcher.start();
      const every = options.retentionIntervalMs ?? 3600_000;
      if (every > 0) {
        const runRetention = () => {
          try {
            const days = store.settings().retentionDays;
            if (days > 0) {
              const n = purge(days * DAY);
              if (n > 0) logger.info(`retention: purged ${n} finished task(s) older than ${days} days`);
            }
          } catch (err) {
            logger.warn(`retention purge failed: ${String(err)}`);
          }
        };
        retentionTimer = setInterval(runRetention, every);
        retentionTimer.unref();
      }
    },
    whenIdle() {
      return dispatcher ? dispatcher.whenIdle() : Promise.resolve();
    },
    async stop(deadlineMs) {
      if (retentionTimer) clearInterval(retentionTimer);
      retentionTimer = null;
      const d = dispatcher;
      dispatcher = null;
      if (d) await d.stop(deadlineMs);
      changes.flush();
    },
    async close(deadlineMs) {
      if (closed) return;
      await engine.stop(deadlineMs);
      closed = true;
      changes.close();
      store.close();
    },
  };
  return engine;
}
