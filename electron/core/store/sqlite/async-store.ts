/**
 * The SQLite backend of the TaskStore contract: a thin adapter over the synchronous
 * SqliteTaskStore. Each call runs synchronously (better-sqlite3 answers at once) and is handed
 * back as a settled Promise, so the cost stays one call per batch, as the caller makes it. SQLite's
 * errors leave here as StorageError naming the file; nothing above this folder sees SQLite's words.
 */
import type { ScheduleStore } from '../schedule-store.ts';
import type { TaskStore } from '../task-store.ts';
import { ChangeWatch } from './change-watch.ts';
import { checkOnOpen, damagedError, damageOf } from './integrity.ts';
import { probeWritable } from './open.ts';
import { SqliteTaskStore, type StoreOptions } from './sqlite-store.ts';
import { toStorageError } from './storage-errors.ts';
import type { SyncScheduleStore } from './sync-store.ts';
import { WalSync } from './wal-sync.ts';

export interface SqliteStoreOptions extends StoreOptions {
  /**
   * How often `watch` asks SQLite whether another connection committed (PRAGMA data_version:
   * no disk read) where the -wal file cannot be watched (see change-watch.ts).
   * @defaultValue 20
   */
  watchIntervalMs?: number;
  /** Told once, with one line, when `watch` falls back to polling. */
  onWatchNotice?: (message: string) => void;
}

type Translate = (err: unknown) => unknown;

/** How long a sound check at open stands in for the next one. */
const RECHECK_AFTER_MS = 5000;

/** Runs `fn` now; its value or its error (translated) as a settled Promise. */
function settle<T>(fn: () => T, translate: Translate): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(translate(err));
  }
}

/** Opens `file` (creating it if needed); throws a StorageError or SchemaTooNewError if it cannot. */
export function openSqliteStore(file: string, options: SqliteStoreOptions = {}): TaskStore {
  const translate: Translate = (err) => toStorageError(err, file) ?? err;
  let sync: SqliteTaskStore;
  try {
    sync = new SqliteTaskStore(file, options);
  } catch (err) {
    throw translate(err);
  }
  const store = new AsyncSqliteStore(sync, file, options.watchIntervalMs ?? 20, options.onWatchNotice);
  // A damaged file is refused before anything reads or writes it (one line saying so).
  const checked = store.file !== undefined && checkOnOpen(store.file);
  const problem = checked ? damageOf(sync.db) : null;
  if (problem !== null) {
    sync.close();
    throw damagedError(file, problem);
  }
  if (checked) store.foundSound();
  return store;
}

class AsyncScheduleStore implements ScheduleStore {
  private readonly s: SyncScheduleStore;
  private readonly t: Translate;
  constructor(sync: SyncScheduleStore, translate: Translate) {
    this.s = sync;
    this.t = translate;
  }
  create: ScheduleStore['create'] = (spec, now) => settle(() => this.s.create(spec, now), this.t);
  replace: ScheduleStore['replace'] = (name, spec, now) =>
    settle(() => this.s.replace(name, spec, now), this.t);
  get: ScheduleStore['get'] = (name) => settle(() => this.s.get(name), this.t);
  list: ScheduleStore['list'] = () => settle(() => this.s.list(), this.t);
  setEnabled: ScheduleStore['setEnabled'] = (name, enabled, next, now) =>
    settle(() => this.s.setEnabled(name, enabled, next, now), this.t);
  remove: ScheduleStore['remove'] = (name) => settle(() => this.s.remove(name), this.t);
  runNow: ScheduleStore['runNow'] = (name, now) => settle(() => this.s.runNow(name, now), this.t);
  fireDue: ScheduleStore['fireDue'] = (now, plan) => settle(() => this.s.fireDue(now, plan), this.t);
  nextDue: ScheduleStore['nextDue'] = () => settle(() => this.s.nextDue(), this.t);
}

class AsyncSqliteStore implements TaskStore {
  readonly location: string;
  readonly file: string | undefined;
  readonly schedules: ScheduleStore;
  private readonly s: SqliteTaskStore;
  private readonly t: Translate;
  private readonly listeners = new Set<() => void>();
  private readonly changes: ChangeWatch;
  private readonly walSync: WalSync | null;
  private watching = false;
  /** when (process uptime, ms) quick_check last found the file sound, if it just did */
  private soundAt: number | null = null;

  constructor(
    sync: SqliteTaskStore,
    file: string,
    watchIntervalMs: number,
    notice: (message: string) => void = () => {},
  ) {
    this.s = sync;
    this.location = file;
    // A read-only copy in memory (see open.ts) has no file to lose.
    this.file = file === ':memory:' || sync.db.memory ? undefined : file;
    this.t = (err) => toStorageError(err, file) ?? err;
    this.schedules = new AsyncScheduleStore(sync.schedules, this.t);
    this.walSync = this.file === undefined ? null : new WalSync(this.file);
    this.changes = new ChangeWatch({
      file: this.file ?? null,
      dataVersion: () => this.s.dataVersion(),
      ownWriteAt: () => this.s.commits.lastWriteAt,
      onChange: () => {
        for (const l of [...this.listeners]) l();
      },
      pollMs: watchIntervalMs,
      notice,
    });
  }

  enqueue: TaskStore['enqueue'] = (tasks, now) => settle(() => this.s.enqueue(tasks, now), this.t);
  tick: TaskStore['tick'] = (input) => settle(() => this.s.tick(input), this.t);
  renewLeases: TaskStore['renewLeases'] = (worker, ids, now, leaseMs) =>
    settle(() => this.s.renewLeases(worker, ids, now, leaseMs), this.t);
  reclaimLost: TaskStore['reclaimLost'] = (now, isLost) =>
    settle(() => this.s.reclaimLost(now, isLost), this.t);
  rebaseAfterClockStep: TaskStore['rebaseAfterClockStep'] = (now) =>
    settle(() => this.s.rebaseAfterClockStep(now), this.t);
  releaseLeases: TaskStore['releaseLeases'] = (worker, ids, now, attemptIds) =>
    settle(() => this.s.releaseLeases(worker, ids, now, attemptIds), this.t);
  setProgress: TaskStore['setProgress'] = (updates, worker) =>
    settle(() => this.s.setProgress(updates, worker), this.t);
  setLiveOutput: TaskStore['setLiveOutput'] = (updates, worker) =>
    settle(() => this.s.setLiveOutput(updates, worker), this.t);
  retry: TaskStore['retry'] = (ids, now) => settle(() => this.s.retry(ids, now), this.t);
  actOnMatching: TaskStore['actOnMatching'] = (action, filter, now, opts) =>
    settle(() => this.s.actOnMatching(action, filter, now, opts), this.t);
  cancel: TaskStore['cancel'] = (ids, now) => settle(() => this.s.cancel(ids, now), this.t);
  remove: TaskStore['remove'] = (ids) => settle(() => this.s.remove(ids), this.t);
  setPriority: TaskStore['setPriority'] = (id, priority, now) =>
    settle(() => this.s.setPriority(id, priority, now), this.t);
  updateGroup: TaskStore['updateGroup'] = (name, update) =>
    settle(() => this.s.updateGroup(name, update), this.t);
  updateSettings: TaskStore['updateSettings'] = (update) =>
    settle(() => this.s.updateSettings(update), this.t);
  setResource: TaskStore['setResource'] = (name, capacity) =>
    settle(() => this.s.setResource(name, capacity), this.t);
  removeResource: TaskStore['removeResource'] = (name) => settle(() => this.s.removeResource(name), this.t);
  setGate: TaskStore['setGate'] = (group, update) => settle(() => this.s.setGate(group, update), this.t);
  removeGate: TaskStore['removeGate'] = (group) => settle(() => this.s.removeGate(group), this.t);
  listGates: TaskStore['listGates'] = () => settle(() => this.s.listGates(), this.t);
  purgeFinished: TaskStore['purgeFinished'] = (before) => settle(() => this.s.purgeFinished(before), this.t);
  getTask: TaskStore['getTask'] = (id) => settle(() => this.s.getTask(id), this.t);
  listTasks: TaskStore['listTasks'] = (query) => settle(() => this.s.listTasks(query), this.t);
  stats: TaskStore['stats'] = (now, recent) => settle(() => this.s.stats(now, recent), this.t);
  failedSince: TaskStore['failedSince'] = (after, limit) =>
    settle(() => this.s.failedSince(after, limit), this.t);
  settings: TaskStore['settings'] = () => settle(() => this.s.settings(), this.t);
  metrics: TaskStore['metrics'] = (now, windowMs) => settle(() => this.s.metrics(now, windowMs), this.t);
  failedByError: TaskStore['failedByError'] = () => settle(() => this.s.failedByError(), this.t);
  finishedSeries: TaskStore['finishedSeries'] = (now, bucketMs, count) =>
    settle(() => this.s.finishedSeries(now, bucketMs, count), this.t);

  leaseHolders: TaskStore['leaseHolders'] = () => settle(() => this.s.leaseHolders(), this.t);
  oldestWaiting: TaskStore['oldestWaiting'] = (now) => settle(() => this.s.oldestWaiting(now), this.t);

  syncResults(): Promise<void> {
    if (this.walSync === null || !this.s.commits.waitsForDisk) return Promise.resolve();
    return this.walSync.sync().catch((err: unknown) => Promise.reject(this.t(err)));
  }

  checkWritable(): void {
    try {
      probeWritable(this.s.db);
    } catch (err) {
      throw this.t(err);
    }
  }

  /** quick_check found the file sound just now (at open). */
  foundSound(): void {
    this.soundAt = process.uptime() * 1000;
  }

  checkIntegrity(): string | null {
    if (this.file === undefined) return null; // a copy in memory
    // A dispatcher starting right after the open's check (`semaforo run`, `work`) would read
    // every page of the file a second time; once is enough.
    const soundAt = this.soundAt;
    this.soundAt = null;
    if (soundAt !== null && process.uptime() * 1000 - soundAt < RECHECK_AFTER_MS) return null;
    const problem = damageOf(this.s.db);
    return problem === null ? null : damagedError(this.file, problem).message;
  }

  /**
   * One watch for every listener (the -wal file's events, confirmed by PRAGMA data_version: see
   * change-watch.ts). Runs only while someone listens.
   */
  watch(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.watching && this.s.db.open) {
      this.watching = true;
      this.changes.start();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopWatching();
    };
  }

  private stopWatching(): void {
    this.watching = false;
    this.changes.stop();
  }

  async close(): Promise<void> {
    this.stopWatching();
    this.listeners.clear();
    await this.walSync?.close();
    return settle(() => this.s.close(), this.t);
  }
}

/** The contract over a SqliteTaskStore opened already (tests that reach into its database first). */
export function wrapSqliteStore(
  sync: SqliteTaskStore,
  file: string,
  watchIntervalMs = 20,
  notice?: (message: string) => void,
): TaskStore {
  return new AsyncSqliteStore(sync, file, watchIntervalMs, notice);
}
