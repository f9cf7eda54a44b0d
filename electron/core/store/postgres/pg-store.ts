/**
 * The PostgreSQL backend of the TaskStore contract: one queue in one schema of a database,
 * shared by every process and host that opens the same URL. It composes the modules of this
 * folder; each method is one transaction (or one read), and errors leave as StorageError naming
 * the URL without its password (db.ts).
 */
import type { ScheduleStore } from '../schedule-store.ts';
import type { TaskStore } from '../task-store.ts';
import { openPgDb, type PgDb } from './db.ts';
import { insertTasks } from './enqueue.ts';
import { reclaimLost, releaseLeases, renewLeases, setLiveOutput, setProgress } from './leases.ts';
import { PgListener } from './listener.ts';
import { migratePg } from './migrations.ts';
import { actOnMatching } from './bulk-actions.ts';
import { cancel, purgeFinished, remove, retry, setPriority } from './operator-actions.ts';
import {
  measureClockOffset,
  offsetWarning,
  sharedClockOffset,
  takeReading,
  type SharedOffset,
} from './pg-clock.ts';
import { settings, updateGroup, updateSettings } from './queue-settings.ts';
import {
  failedByError,
  failedSince,
  finishedSeries,
  getTask,
  leaseHolders,
  oldestWaiting,
  listTasks,
  metrics,
  stats,
} from './reads.ts';
import { listGates, removeGate, setGate } from './gates.ts';
import { removeResource, setResource } from './resources.ts';
import { createPgScheduleStore } from './schedule-store.ts';
import { newApartState, tickApart } from './tick-apart.ts';

export interface PgStoreOptions {
  /** Told, once per distinct message, of a failure of the store's own background work. */
  onBackgroundError?: (message: string) => void;
  /**
   * This host's wall clock, against which its offset to the database's clock is measured
   * (pg-clock.ts); tests give a skewed one to play a host whose clock is off.
   * @defaultValue Date.now
   */
  hostClock?: () => number;
  /** connections in the pool @defaultValue 4 */
  poolSize?: number;
  /** refuse (NotFoundError) instead of creating a queue that is not there @defaultValue false */
  existingOnly?: boolean;
}

/** Opens (creating or migrating the schema if needed) the queue at a postgres:// URL. */
export async function openPgStore(url: string, options: PgStoreOptions = {}): Promise<TaskStore> {
  const db = openPgDb(url, { poolSize: options.poolSize });
  try {
    await migratePg(db, { create: options.existingOnly !== true });
    const hostClock = options.hostClock ?? Date.now;
    const offset = await sharedClockOffset(db, `${url}\0${db.schema}`, hostClock);
    const report = onceEach(options.onBackgroundError);
    const warning = offsetWarning(offset.value);
    if (warning !== null) report(warning);
    const listener = new PgListener(db, report);
    await listener.start();
    return new PgTaskStore(db, listener, offset, hostClock);
  } catch (e) {
    await db.close().catch(() => {});
    throw db.translate(e);
  }
}

function onceEach(report: ((message: string) => void) | undefined): (message: string) => void {
  const seen = new Set<string>();
  return (message) => {
    if (!report || seen.has(message)) return;
    seen.add(message);
    report(message);
  };
}

class PgTaskStore implements TaskStore {
  readonly location: string;
  /**
   * A tick is round trips to the server: more per tick drains faster (RESULTS.md, section 9),
   * and 1,024 still keeps a tick, which holds the queue's claim lock, short for the other hosts
   * (~35 ms for a full batch of no-op tasks on 2 cores).
   */
  readonly claimBatch = 1024;
  readonly schedules: ScheduleStore;
  private readonly db: PgDb;
  private readonly listener: PgListener;
  private readonly hostClock: () => number;
  /** this host's clock to the database's, ms, shared by this process's stores on it (pg-clock.ts) */
  private readonly offset: SharedOffset;

  constructor(db: PgDb, listener: PgListener, offset: SharedOffset, hostClock: () => number) {
    this.db = db;
    this.location = db.location;
    this.offset = offset;
    this.hostClock = hostClock;
    this.schedules = createPgScheduleStore(db);
    this.listener = listener;
  }

  private get clockOffset(): number {
    return this.offset.value;
  }

  enqueue: TaskStore['enqueue'] = (tasks, now) =>
    tasks.length === 0 ? Promise.resolve([]) : this.db.tx((q) => insertTasks(q, tasks, now));
  private readonly apart = newApartState();
  tick: TaskStore['tick'] = (input) => tickApart(this.db, input, this.clockOffset, this.apart);
  renewLeases: TaskStore['renewLeases'] = (worker, ids, now, leaseMs) =>
    renewLeases(this.db, worker, ids, now, leaseMs);
  reclaimLost: TaskStore['reclaimLost'] = (now, isLost) => reclaimLost(this.db, now, isLost);
  releaseLeases: TaskStore['releaseLeases'] = (worker, ids, now, attemptIds) =>
    releaseLeases(this.db, worker, ids, now, attemptIds);
  setProgress: TaskStore['setProgress'] = (updates, worker) => setProgress(this.db, updates, worker);
  setLiveOutput: TaskStore['setLiveOutput'] = (updates, worker) => setLiveOutput(this.db, updates, worker);

  /**
   * The queue is shared with hosts whose clocks did not step, so nothing stored is moved (SQLite
   * rebases because every process of a file shares one clock). What the hosts compare, rate
   * windows and cool-downs, is on the database's clock; a step of this host's clock only changes
   * its offset, measured again here. A delay this host wrote before a step back waits longer by
   * the step. Always resolves to null.
   */
  rebaseAfterClockStep: TaskStore['rebaseAfterClockStep'] = async () => {
    takeReading(this.offset, await measureClockOffset(this.db, this.hostClock));
    return null;
  };

  retry: TaskStore['retry'] = (ids, now) => retry(this.db, ids, now);
  actOnMatching: TaskStore['actOnMatching'] = (action, filter, now, opts) =>
    actOnMatching(this.db, action, filter, now, opts);
  cancel: TaskStore['cancel'] = (ids, now) => cancel(this.db, ids, now);
  remove: TaskStore['remove'] = (ids) => remove(this.db, ids);
  setPriority: TaskStore['setPriority'] = (id, priority, now) => setPriority(this.db, id, priority, now);
  updateGroup: TaskStore['updateGroup'] = (name, update) =>
    updateGroup(this.db, name, update, this.hostClock(), this.clockOffset);
  updateSettings: TaskStore['updateSettings'] = (update) => updateSettings(this.db, update);
  setResource: TaskStore['setResource'] = (name, capacity) => setResource(this.db, name, capacity);
  removeResource: TaskStore['removeResource'] = (name) => removeResource(this.db, name);
  setGate: TaskStore['setGate'] = (group, update) => setGate(this.db, group, update);
  removeGate: TaskStore['removeGate'] = (group) => removeGate(this.db, group);
  listGates: TaskStore['listGates'] = () => listGates(this.db);
  purgeFinished: TaskStore['purgeFinished'] = (before) => purgeFinished(this.db, before);

  getTask: TaskStore['getTask'] = (id) => getTask(this.db, id);
  listTasks: TaskStore['listTasks'] = (query) => listTasks(this.db, query);
  stats: TaskStore['stats'] = (now, recent) => stats(this.db, now, recent, this.clockOffset);
  failedSince: TaskStore['failedSince'] = (after, limit) => failedSince(this.db, after, limit);
  settings: TaskStore['settings'] = () => settings(this.db);
  metrics: TaskStore['metrics'] = (now, windowMs) => metrics(this.db, now, windowMs);
  failedByError: TaskStore['failedByError'] = () => failedByError(this.db);
  finishedSeries: TaskStore['finishedSeries'] = (now, bucketMs, count) =>
    finishedSeries(this.db, now, bucketMs, count);
  leaseHolders: TaskStore['leaseHolders'] = () => leaseHolders(this.db);
  oldestWaiting: TaskStore['oldestWaiting'] = (now) => oldestWaiting(this.db, now);

  watch(listener: () => void): () => void {
    return this.listener.watch(listener);
  }

  /** Resolves once `watch` is listening (tests that cut its connection wait for it). */
  listening(): Promise<void> {
    return this.listener.ready();
  }

  async close(): Promise<void> {
    this.listener.close();
    await this.db.close();
  }
}
