/**
 * The engine: the one object every face (tray app, CLI, server) uses. It validates every input
 * with the shared schemas, owns the store and, once started, a dispatcher. Nothing happens at
 * import time: `createEngine` is handed the world (file, clock, logger, handlers).
 */
import type {
  GroupInfo,
  JsonValue,
  Metrics,
  QueueSettings,
  Schedule,
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
  recurrenceSchema,
  retryFilterSchema,
  scheduleNameSchema,
  scheduleSpecSchema,
  settingsUpdateSchema,
  taskIdSchema,
  type GroupUpdate,
  type ListQuery,
  type RetryFilter,
  type SettingsUpdate,
} from '../../shared/schemas.ts';
import { parseTaskSpec } from '../../shared/task-spec-quick.ts';
import { systemClock, type Clock, type MonotonicClock } from './clock.ts';
import { Dispatcher, type DispatcherOptions } from './dispatch/dispatcher.ts';
import { ChangeCoalescer, type ChangeListener } from './events.ts';
import { HandlerRegistry, type Handler } from './handlers/registry.ts';
import { builtinHandlers } from './handlers/builtin.ts';
import { silentLogger, type Logger } from './logger.ts';
import type { BackoffPolicy } from './policy/backoff.ts';
import { probeWritable, type OpenOptions } from './store/sqlite/open.ts';
import { SqliteTaskStore } from './store/sqlite/sqlite-store.ts';
import { toStorageError } from './store/sqlite/storage-errors.ts';
import { DbFileGuard, openedFiles } from './db-file-guard.ts';
import { assertTrusted } from './trust/file-trust.ts';
import { checkOnOpen, damagedError, damageOf, watchIntegrity } from './store/sqlite/integrity.ts';
import type { EnqueueResult, NewTask, TaskStore } from './store/task-store.ts';
import { isOwnerProcessGone, newWorkerIdentity } from './worker-identity.ts';
import { Scheduler, fireDueSchedules } from './schedule/scheduler.ts';
import type { NewSchedule, StoredSchedule } from './store/schedule-store.ts';
import { recurrenceOf } from './schedule/plan.ts';
import { nextDue, nextDues } from '../../shared/schedule-times.ts';

const DAY = 24 * 3600_000;

export interface EngineOptions {
  /** the SQLite file; ignored when `store` is given */
  file?: string;
  store?: TaskStore;
  sqlite?: OpenOptions;
  clock?: Clock;
  /** measures the dispatcher's own waits across wall-clock steps (default `performance.now()`) */
  monotonic?: MonotonicClock;
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
  /** run PRAGMA quick_check this often while the dispatcher runs (default 10 min; 0: never) */
  integrityCheckIntervalMs?: number;
  /** run the retention purge this often while the dispatcher runs (default hourly; 0: never) */
  retentionIntervalMs?: number;
  /**
   * A private worker (`semaforo run`): every task this engine enqueues is reserved for its own
   * dispatcher, which claims only those, under the same limits as everyone else.
   */
  privateWorker?: boolean;
  /** fire due schedules while dispatching (default: yes, except for a private worker) */
  schedules?: boolean;
  /** the longest wait between schedule checks (default 1 s) */
  scheduleIntervalMs?: number;
  /**
   * While dispatching, how often to check that the database file (and its -wal and -shm) is still
   * the one this process opened, not deleted or replaced (default 500 ms: three stat calls, and
   * the shorter, the less another process can pick up a lost file's -wal meanwhile; 0: never).
   */
  fileCheckIntervalMs?: number;
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
  listSchedules(): Schedule[];
  getSchedule(name: unknown): Schedule;
  createSchedule(spec: unknown): Schedule;
  /** Replaces the whole schedule; `spec.name` may rename it. */
  updateSchedule(name: unknown, spec: unknown): Schedule;
  pauseSchedule(name: unknown): Schedule;
  resumeSchedule(name: unknown): Schedule;
  removeSchedule(name: unknown): void;
  /** Enqueues one run of the schedule's task now, whatever its due times. */
  runScheduleNow(name: unknown): EnqueueResult;
  /** The next due times of a recurrence (cron+timezone or everyMs) from now. */
  previewSchedule(recurrence: unknown): { times: number[]; timezone: string | null };
  /** Fires the schedules due now (the scheduler does this by itself while dispatching). */
  fireSchedules(): number[];
  /** The enabled schedule due soonest, for the tray. */
  nextSchedule(): { name: string; at: number } | null;
  onChange(listener: ChangeListener): () => void;
  /**
   * Reports other processes' writes as change events even while this engine does not dispatch
   * (a dispatcher does this itself), e.g. for `serve --no-work`. Returns a function that stops it.
   */
  watchExternalChanges(intervalMs?: number): () => void;
  /**
   * Throws a StorageError naming the file and the reason unless this process can write the queue.
   * A connection opened while the file was read-only stays read-only even once it is writable.
   */
  checkWritable(): void;
  /**
   * Calls `listener` with one line if dispatching stopped because the database file was deleted
   * or replaced under this process (see db-file-guard.ts). Returns a function that unsubscribes.
   */
  onFault(listener: (message: string) => void): () => void;
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
  // Storage failures reach every face as one line naming the file ("the disk is full"), not as
  // SQLite's words; a store passed in (tests, wrappers) is described by whoever made it.
  const file = options.store ? null : options.file!;
  const translate = (err: unknown): unknown => (file === null ? err : (toStorageError(err, file) ?? err));
  let store: TaskStore;
  try {
    // Once per distinct message: a move that cannot be written is retried every second.
    let inboxError = '';
    const onInboxError = (message: string) => {
      if (message !== inboxError) logger.error((inboxError = message));
    };
    // Its tasks run as this user: refuse a file another user could have written.
    if (file !== null && !file.startsWith(':') && !file.startsWith('file:'))
      assertTrusted(file, 'queue file');
    store = options.store ?? new SqliteTaskStore(file!, { ...options.sqlite, onInboxError });
  } catch (err) {
    throw translate(err);
  }
  // A damaged file is refused before anything reads or writes it (one line saying so).
  const sqlite =
    file !== null && store instanceof SqliteTaskStore && !store.db.memory ? { file, db: store.db } : null;
  const damage = sqlite !== null && checkOnOpen(sqlite.file) ? damageOf(sqlite.db) : null;
  if (damage !== null) {
    store.close();
    throw damagedError(sqlite!.file, damage);
  }
  let stopIntegrity = () => {};
  // A read-only copy in memory (see open.ts) has no file to lose.
  const guard =
    file !== null && store instanceof SqliteTaskStore && !store.db.memory
      ? new DbFileGuard(file, openedFiles(file))
      : null;
  let fault: string | null = null;
  const faultListeners = new Set<(message: string) => void>();
  const registry = new HandlerRegistry();
  // A handler given for a built-in kind replaces it (e.g. `run` runs `shell` with the caller's stdio).
  const given = new Set((options.handlers ?? []).map((h) => h.kind));
  for (const h of builtinHandlers()) if (!given.has(h.kind)) registry.register(h);
  for (const h of options.handlers ?? []) registry.register(h);
  for (const h of options.userHandlers ?? []) registry.register(h, 'user');
  const changes = new ChangeCoalescer(options.eventIntervalMs ?? 200);
  let dispatcher: Dispatcher | null = null;
  let retentionTimer: ReturnType<typeof setInterval> | null = null;
  let scheduler: Scheduler | null = null;
  let stopping: Promise<void> | null = null;
  let closed = false;
  const worker = newWorkerIdentity(options.workerLabel);
  const reservedFor = options.privateWorker ? worker : null;

  const ids = (input: unknown, field = 'ids'): number[] => {
    const list = Array.isArray(input) ? input : [input];
    if (list.length === 0)
      throw new ValidationError([{ path: field, message: 'must name at least one task id' }]);
    return list.map((id, i) => parseInput(taskIdSchema, id, `${field}[${i}]`));
  };

  const toNewTask = (spec: unknown, prefix: string, now: number): NewTask => {
    const s = parseTaskSpec(spec, prefix);
    const payload = registry.parsePayload(s.kind, s.payload, prefix);
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

  const UPCOMING = 5;
  const withUpcoming = (s: StoredSchedule): Schedule => {
    const now = clock.now();
    const r = recurrenceOf(s, s.nextDueAt ?? now + (s.everyMs ?? 0));
    // A paused schedule shows what it would do if resumed now.
    const first = s.enabled ? s.nextDueAt : nextDue(r, now);
    const upcoming = first === null ? [] : [first, ...nextDues(r, first, UPCOMING - 1)];
    return { ...s, upcoming };
  };

  /** Validates a schedule spec (its task payload by the kind's own schema) into what is stored. */
  const toNewSchedule = (spec: unknown, prefix = ''): NewSchedule => {
    const s = parseInput(scheduleSpecSchema, spec, prefix);
    const t = s.task;
    const payload = registry.parsePayload(t.kind, t.payload, prefix ? `${prefix}.task` : 'task');
    const enabled = s.enabled ?? true;
    const cron = s.cron ?? null;
    const timezone = s.timezone ?? null;
    const everyMs = s.everyMs ?? null;
    const now = clock.now();
    const r = recurrenceOf({ cron, timezone, everyMs }, now + (everyMs ?? 0));
    return {
      name: s.name,
      cron,
      timezone,
      everyMs,
      task: {
        kind: t.kind,
        name: t.name ?? null,
        group: t.group ?? 'default',
        priority: t.priority ?? LIMITS.priority.default,
        maxAttempts: t.maxAttempts ?? LIMITS.maxAttempts.default,
        timeout: t.timeout ?? null,
        payload: (payload ?? {}) as JsonValue,
      },
      missed: s.missed ?? 'skip',
      overlap: s.overlap ?? 'allow',
      enabled,
      // Due times count from now: a new or edited schedule never "catches up" on its past.
      nextDueAt: enabled ? (everyMs !== null ? now + everyMs : nextDue(r, now)) : null,
    };
  };
  const scheduleName = (name: unknown) => parseInput(scheduleNameSchema, name, 'name');
  const scheduleChanged = () => {
    changes.touch();
    scheduler?.wake();
  };

  const purge = (olderThanMs: number) => store.purgeFinished(clock.now() - olderThanMs);
  /** For logs: a storage failure as its one line naming the file; anything else as before. */
  const describeError = (err: unknown): string => {
    const t = translate(err);
    return t instanceof Error && t !== err ? t.message : String(err);
  };

  /** The file this process writes was deleted or replaced: say so once and stop dispatching. */
  const fileLost = (message: string) => {
    if (fault !== null) return;
    fault = message;
    logger.error(message);
    // Running tasks get the usual grace to end; nothing new is claimed into the lost file.
    engine.stop().catch((err: unknown) => logger.error(`stopping after the file was lost: ${String(err)}`));
    for (const l of faultListeners) l(message);
  };

  const engine: Engine = {
    registry,
    store,
    enqueue(spec) {
      const now = clock.now();
      const [r] = store.enqueue([toNewTask(spec, '', now)], now);
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
      const now = clock.now();
      const tasks = specs.map((s, i) => toNewTask(s, `tasks[${i}]`, now));
      const out = store.enqueue(tasks, now);
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
      changes.touch();
      dispatcher?.wake();
      return g;
    },
    updateSettings(update) {
      const s = store.updateSettings(parseInput(settingsUpdateSchema, update) as SettingsUpdate);
      changes.touch();
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
    listSchedules() {
      return store.schedules.list().map(withUpcoming);
    },
    getSchedule(name) {
      const n = scheduleName(name);
      const s = store.schedules.get(n);
      if (!s) throw new NotFoundError(`schedule "${n}" does not exist`);
      return withUpcoming(s);
    },
    createSchedule(spec) {
      const s = store.schedules.create(toNewSchedule(spec), clock.now());
      scheduleChanged();
      return withUpcoming(s);
    },
    updateSchedule(name, spec) {
      const n = scheduleName(name);
      const s = store.schedules.replace(n, toNewSchedule(spec, 'schedule'), clock.now());
      scheduleChanged();
      return withUpcoming(s);
    },
    pauseSchedule(name) {
      const s = store.schedules.setEnabled(scheduleName(name), false, null, clock.now());
      scheduleChanged();
      return withUpcoming(s);
    },
    resumeSchedule(name) {
      const n = scheduleName(name);
      const old = engine.getSchedule(n);
      const now = clock.now();
      // Resuming starts from now: runs that fell in the pause are not missed runs.
      const r = recurrenceOf(old, now + (old.everyMs ?? 0));
      const next = old.everyMs !== null ? now + old.everyMs : nextDue(r, now);
      const s = store.schedules.setEnabled(n, true, next, now);
      scheduleChanged();
      return withUpcoming(s);
    },
    removeSchedule(name) {
      const n = scheduleName(name);
      if (!store.schedules.remove(n)) throw new NotFoundError(`schedule "${n}" does not exist`);
      scheduleChanged();
    },
    runScheduleNow(name) {
      const { taskId, created } = store.schedules.runNow(scheduleName(name), clock.now());
      changed([taskId]);
      return { task: store.getTask(taskId)!, created };
    },
    previewSchedule(input) {
      const r = parseInput(recurrenceSchema, input);
      const now = clock.now();
      const rec = recurrenceOf(
        { cron: r.cron ?? null, timezone: r.timezone ?? null, everyMs: r.everyMs ?? null },
        now + (r.everyMs ?? 0),
      );
      const count = r.count ?? UPCOMING;
      const first = r.everyMs !== undefined ? now + r.everyMs : nextDue(rec, now);
      const times = first === null ? [] : [first, ...nextDues(rec, first, count - 1)];
      return { times, timezone: r.cron !== undefined ? (r.timezone ?? null) : null };
    },
    fireSchedules() {
      const out = fireDueSchedules(store.schedules, clock.now());
      changed(out);
      return out;
    },
    nextSchedule() {
      const n = store.schedules.nextDue();
      return n ? { name: n.name, at: n.dueAt } : null;
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
    checkWritable() {
      if (store instanceof SqliteTaskStore) probeWritable(store.db);
    },
    onFault(listener) {
      faultListeners.add(listener);
      return () => faultListeners.delete(listener);
    },
    start() {
      if (closed) throw new Error('engine is closed');
      if (dispatcher) return;
      if (fault === null) fault = guard?.check() ?? null;
      const damaged = fault === null && sqlite !== null ? damageOf(sqlite.db) : null;
      if (damaged !== null) fault = damagedError(sqlite!.file, damaged).message;
      if (fault !== null) throw new Error(fault);
      const dispatcherOptions: DispatcherOptions = {
        store,
        registry,
        clock,
        monotonic: options.monotonic,
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
        describeError,
      };
      dispatcher = new Dispatcher(dispatcherOptions);
      dispatcher.start();
      const checkEvery = options.fileCheckIntervalMs ?? 500;
      if (checkEvery > 0) guard?.start(checkEvery, fileLost);
      const integrityEvery = options.integrityCheckIntervalMs ?? 600_000;
      if (sqlite !== null && integrityEvery > 0)
        stopIntegrity = watchIntegrity(sqlite.db, sqlite.file, integrityEvery, fileLost);
      if (options.schedules ?? !options.privateWorker) {
        scheduler = new Scheduler({
          store: store.schedules,
          clock,
          logger,
          onEnqueued: (list) => changed(list),
          intervalMs: options.scheduleIntervalMs,
          describeError,
        });
        scheduler.start();
      }
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
    stop(deadlineMs) {
      // A second stop (or close) while one is under way waits for it rather than returning at
      // once: close() would otherwise close the database under tasks still finishing.
      stopping ??= (async () => {
        guard?.stop();
        scheduler?.stop();
        scheduler = null;
        if (retentionTimer) clearInterval(retentionTimer);
        retentionTimer = null;
        stopIntegrity();
        const d = dispatcher;
        dispatcher = null;
        if (d) await d.stop(deadlineMs);
        changes.flush();
      })().finally(() => {
        stopping = null;
      });
      return stopping;
    },
    async close(deadlineMs) {
      if (closed) return;
      await engine.stop(deadlineMs);
      closed = true;
      changes.close();
      store.close();
    },
  };
  // Every face calls these: a storage failure leaves them as a StorageError with one clear line.
  for (const key of Object.keys(engine)) {
    const d = Object.getOwnPropertyDescriptor(engine, key);
    if (!d || typeof d.value !== 'function') continue;
    const fn = d.value as (...args: unknown[]) => unknown;
    const wrapped = (...args: unknown[]): unknown => {
      try {
        const out = fn.apply(engine, args);
        return out instanceof Promise ? out.catch((err: unknown) => Promise.reject(translate(err))) : out;
      } catch (err) {
        throw translate(err);
      }
    };
    Object.defineProperty(engine, key, { ...d, value: wrapped });
  }
  return engine;
}
