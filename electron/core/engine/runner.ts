/**
 * The engine's running parts, started together and stopped together: the dispatcher (claims and
 * runs tasks), the scheduler (fires due schedules), the retention purge, the file guard (stops
 * dispatching if the queue's file is deleted or replaced under this process) and the integrity
 * check (stops it if the queue is found damaged).
 */
import { DbFileGuard, openedFiles } from '../db-file-guard.ts';
import { Dispatcher } from '../dispatch/dispatcher.ts';
import { StorageError } from '../errors.ts';
import type { ChangeCoalescer } from '../events.ts';
import type { HandlerRegistry } from '../handlers/registry.ts';
import type { AlarmUpdate } from '../schedule/alarm-watch.ts';
import { Scheduler } from '../schedule/scheduler.ts';
import type { TaskStore, WorkerIdentity } from '../store/task-store.ts';
import { isOwnerProcessGone } from '../worker-identity.ts';
import type { EngineConfig } from './config.ts';

const DAY = 24 * 3600_000;

/** For logs: a storage failure as its one line naming the queue; anything else as it is. */
const describeError = (err: unknown): string => (err instanceof StorageError ? err.message : String(err));

export interface RunnerParts {
  store: TaskStore;
  registry: HandlerRegistry;
  config: EngineConfig;
  worker: WorkerIdentity;
  changes: ChangeCoalescer;
  /** tasks were enqueued by the scheduler */
  tasksChanged: (ids: readonly number[]) => void;
}

export class Runner {
  private readonly p: RunnerParts;
  /** watches the queue's file; null when the store is not a local file (or a copy in memory) */
  private readonly guard: DbFileGuard | null;
  private dispatcher: Dispatcher | null = null;
  private scheduler: Scheduler | null = null;
  private retentionTimer: ReturnType<typeof setInterval> | null = null;
  private integrityTimer: ReturnType<typeof setInterval> | null = null;
  private stopping: Promise<void> | null = null;
  private fault: string | null = null;
  private readonly faultListeners = new Set<(message: string) => void>();
  private readonly alarmListeners = new Set<(update: AlarmUpdate) => void>();

  constructor(parts: RunnerParts) {
    this.p = parts;
    // What the paths name now, right after opening: what a later check compares with.
    const file = parts.store.file;
    this.guard = file !== undefined ? new DbFileGuard(file, openedFiles(file)) : null;
  }

  get dispatching(): boolean {
    return this.dispatcher !== null;
  }

  /** Claim now: something this process did may have made tasks claimable. */
  wake(): void {
    this.dispatcher?.wake();
  }

  scheduleChanged(): void {
    this.scheduler?.wake();
  }

  abortCancelled(ids: readonly number[]): void {
    this.dispatcher?.abortCancelled(ids);
  }

  onFault(listener: (message: string) => void): () => void {
    this.faultListeners.add(listener);
    return () => this.faultListeners.delete(listener);
  }

  onScheduleAlarms(listener: (update: AlarmUpdate) => void): () => void {
    this.alarmListeners.add(listener);
    return () => this.alarmListeners.delete(listener);
  }

  /** Each new alarm is one warning in the log (of `work`, `serve`, the tray app), then listeners. */
  private alarmsChanged(update: AlarmUpdate): void {
    for (const a of update.raised)
      this.p.config.logger.warn(`schedule "${a.schedule}" is ${a.state}: ${a.message}`);
    for (const l of this.alarmListeners) l(update);
  }

  /** Other processes' writes as change events while this process does not dispatch. */
  watchExternalChanges(): () => void {
    return this.p.store.watch(() => {
      if (!this.dispatcher) this.p.changes.add([], true);
    });
  }

  start(): void {
    if (this.dispatcher) return;
    const { store, config, changes } = this.p;
    if (this.fault === null) this.fault = this.guard?.check() ?? null;
    // A damaged queue is not dispatched from: the writes would go on into a file that may lose them.
    if (this.fault === null) this.fault = store.checkIntegrity?.() ?? null;
    if (this.fault !== null) throw new Error(this.fault);
    this.dispatcher = new Dispatcher({
      store,
      registry: this.p.registry,
      clock: config.clock,
      monotonic: config.monotonic,
      logger: config.logger,
      worker: this.p.worker,
      config: { ...config, reservedOnly: config.privateWorker },
      onChange: (ids) => changes.add(ids),
      onExternalChange: () => changes.add([], true),
      isOwnerDead: isOwnerProcessGone,
      describeError,
      ...(config.readMachine && { readMachine: config.readMachine }),
    });
    this.dispatcher.start();
    if (config.fileCheckIntervalMs > 0)
      this.guard?.start(config.fileCheckIntervalMs, (m) => this.fileLost(m));
    if (config.schedules) {
      this.scheduler = new Scheduler({
        store: store.schedules,
        clock: config.clock,
        logger: config.logger,
        onEnqueued: (ids) => this.p.tasksChanged(ids),
        intervalMs: config.scheduleIntervalMs,
        describeError,
        onAlarms: (update) => this.alarmsChanged(update),
      });
      this.scheduler.start();
    }
    if (config.integrityCheckIntervalMs > 0 && store.checkIntegrity) {
      this.integrityTimer = setInterval(() => {
        const damage = store.checkIntegrity?.() ?? null;
        if (damage !== null) this.fileLost(damage);
      }, config.integrityCheckIntervalMs);
      this.integrityTimer.unref();
    }
    if (config.retentionIntervalMs > 0) {
      this.retentionTimer = setInterval(() => void this.retention(), config.retentionIntervalMs);
      this.retentionTimer.unref();
    }
  }

  whenIdle(): Promise<void> {
    return this.dispatcher ? this.dispatcher.whenIdle() : Promise.resolve();
  }

  /** A second stop while one is under way waits for it (close() must not close the store under it). */
  stop(deadlineMs?: number): Promise<void> {
    this.stopping ??= (async () => {
      this.guard?.stop();
      this.scheduler?.stop();
      this.scheduler = null;
      if (this.retentionTimer) clearInterval(this.retentionTimer);
      this.retentionTimer = null;
      if (this.integrityTimer) clearInterval(this.integrityTimer);
      this.integrityTimer = null;
      const d = this.dispatcher;
      this.dispatcher = null;
      if (d) await d.stop(deadlineMs);
      this.p.changes.flush();
    })().finally(() => {
      this.stopping = null;
    });
    return this.stopping;
  }

  private async retention(): Promise<void> {
    const { store, config } = this.p;
    try {
      const days = (await store.settings()).retentionDays;
      if (days <= 0) return;
      const n = await store.purgeFinished(config.clock.now() - days * DAY);
      if (n > 0) config.logger.info(`retention: purged ${n} finished task(s) older than ${days} days`);
    } catch (err) {
      config.logger.warn(`retention purge failed: ${String(err)}`);
    }
  }

  /** The file this process writes was deleted or replaced: say so once and stop dispatching. */
  private fileLost(message: string): void {
    if (this.fault !== null) return;
    this.fault = message;
    this.p.config.logger.error(message);
    // Running tasks get the usual grace to end; nothing new is claimed into the lost file.
    this.stop().catch((err: unknown) =>
      this.p.config.logger.error(`stopping after the file was lost: ${String(err)}`),
    );
    for (const l of this.faultListeners) l(message);
  }
}
