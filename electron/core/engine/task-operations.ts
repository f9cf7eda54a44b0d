/**
 * The engine's task operations: enqueue, read, and the operator's actions. Inputs arrive parsed by
 * the face (shared/schemas.ts); only what needs the engine is checked here (the payload, by its
 * kind's own schema) and the defaults a stored task needs are filled in.
 */
import type {
  EnqueueResult,
  GateConfig,
  GroupInfo,
  Metrics,
  SeriesRange,
  ThroughputSeries,
  QueueSettings,
  ResourceInfo,
  Stats,
  Task,
  TaskPage,
  TaskWithHistory,
  WorkerLeases,
  GroupStats,
} from '../../../shared/domain.ts';
import { NotFoundError, ValidationError } from '../../../shared/errors.ts';
import { LIMITS } from '../../../shared/limits.ts';
import type {
  GateUpdate,
  GroupUpdate,
  ListQuery,
  ParsedTaskSpec,
  RetryFilter,
  SettingsUpdate,
} from '../../../shared/schemas.ts';
import type { BulkRequest, CauseCount } from '../../../shared/task-filter.ts';
import { countByCause } from '../policy/cause-counts.ts';
import type { BulkOutcome, NewTask } from '../store/task-store.ts';
import { defaultTaskName } from '../policy/default-name.ts';
import { SERIES_SHAPES, seriesFrom } from '../policy/throughput-series.ts';
import { GROUP_STATS_WINDOW_MS, groupStatsOf } from '../policy/group-stats.ts';
import type { EngineCore } from './core.ts';

const DAY = 24 * 3600_000;

export interface TaskOperations {
  enqueue(spec: ParsedTaskSpec): Promise<EnqueueResult>;
  /** At most LIMITS.batch specs; one whose payload is invalid writes nothing. */
  enqueueMany(specs: readonly ParsedTaskSpec[]): Promise<EnqueueResult[]>;
  /** Rejects with a NotFoundError when there is no such task. */
  getTask(id: number): Promise<TaskWithHistory>;
  listTasks(query?: ListQuery): Promise<TaskPage>;
  /** `recentFailures` is clamped to 0..100. */
  stats(recentFailures?: number): Promise<Stats>;
  metrics(windowMs?: number): Promise<Metrics>;
  /** The last hour, day or week, in total and per group, from one store read (policy/throughput-series.ts). */
  throughputSeries(range?: SeriesRange): Promise<ThroughputSeries>;
  /** Tasks that failed for good after a (finishedAt, id) cursor, oldest first (for notifiers). */
  failedSince(after: { at: number; id: number }, limit?: number): Promise<Task[]>;
  retry(ids: readonly number[]): Promise<number[]>;
  /** Every failed task (of a group, of a kind): the CLI's `retry --failed`, the tray's "Retry all". */
  retryFailed(filter?: RetryFilter): Promise<number[]>;
  /** Retry, cancel or delete what a filter matches, at most `max` (shared/task-filter.ts). */
  actOnMatching(request: BulkRequest): Promise<BulkOutcome>;
  /** The failed tasks per failure group (policy/cause-counts.ts). */
  failureCounts(): Promise<CauseCount[]>;
  /** Who holds which leases, since when. */
  workers(): Promise<WorkerLeases[]>;
  /** Each group's oldest due waiting task and its last hour's run times (policy/group-stats.ts). */
  groupStats(): Promise<GroupStats[]>;
  cancel(ids: readonly number[]): Promise<{ cancelled: number[]; requested: number[] }>;
  remove(ids: readonly number[]): Promise<number[]>;
  setPriority(id: number, priority: number): Promise<Task>;
  updateGroup(name: string, update: GroupUpdate): Promise<GroupInfo>;
  updateSettings(update: SettingsUpdate): Promise<QueueSettings>;
  /** Creates a named resource or sets its capacity; the claims use it from their next tick. */
  setResource(name: string, capacity: number): Promise<ResourceInfo>;
  /** Rejects with a NotFoundError when there is no such resource. */
  removeResource(name: string): Promise<void>;
  /** Every resource with its holders and waiters. */
  resources(): Promise<ResourceInfo[]>;
  /** Creates or changes the machine gate of a group (null: the whole queue). */
  setGate(group: string | null, update: GateUpdate): Promise<GateConfig>;
  /** Rejects with a NotFoundError when there is no such gate. */
  removeGate(group: string | null): Promise<void>;
  pause(group?: string): Promise<void>;
  resume(group?: string): Promise<void>;
  /** Deletes finished tasks that ended more than `olderThanMs` ago (default: the retention setting). */
  purge(olderThanMs?: number): Promise<number>;
}

export function createTaskOperations(core: EngineCore): TaskOperations {
  const { store, clock, registry } = core;

  const toNewTask = (s: ParsedTaskSpec, payload: unknown, now: number): NewTask => {
    return {
      kind: s.kind,
      name: s.name ?? defaultTaskName(s.kind, payload),
      group: s.group ?? 'default',
      priority: s.priority ?? LIMITS.priority.default,
      payload: JSON.stringify(payload ?? {}),
      maxAttempts: s.maxAttempts ?? LIMITS.maxAttempts.default,
      runAt: s.runAt ?? now + (s.delay ?? 0),
      timeout: s.timeout ?? null,
      unique: s.unique ?? null,
      reservedFor: core.reservedFor,
      ...(s.uses && s.uses.length > 0 && { uses: s.uses }),
    };
  };

  const enqueue = async (tasks: NewTask[], now: number) => {
    const out = await store.enqueue(tasks, now);
    core.tasksChanged(out.map((r) => r.task.id));
    return out;
  };
  const changing = async (run: Promise<number[]>) => {
    const ids = await run;
    core.tasksChanged(ids);
    return ids;
  };
  const limits = async <T>(run: Promise<T>) => {
    const out = await run;
    core.limitsChanged();
    return out;
  };

  const ops: TaskOperations = {
    async enqueue(spec) {
      const now = clock.now();
      const [r] = await enqueue(
        [toNewTask(spec, await registry.parsePayload(spec.kind, spec.payload, ''), now)],
        now,
      );
      return r!;
    },
    async enqueueMany(specs) {
      if (specs.length > LIMITS.batch) {
        throw new ValidationError([
          { path: 'tasks', message: `holds ${specs.length} tasks; at most ${LIMITS.batch} per batch` },
        ]);
      }
      // Check every payload first: one bad spec writes nothing.
      const now = clock.now();
      const tasks: NewTask[] = [];
      for (const [i, s] of specs.entries()) {
        // In order, so the first bad spec is the one reported; awaited only when it is a
        // promise (a kind's schema loading, handlers/payload.ts): a big batch stays synchronous.
        let payload = registry.parsePayload(s.kind, s.payload, `tasks[${i}]`);
        if (payload instanceof Promise) payload = await payload;
        tasks.push(toNewTask(s, payload, now));
      }
      return enqueue(tasks, now);
    },
    async getTask(id) {
      const t = await store.getTask(id);
      if (!t) throw new NotFoundError(`task ${id} does not exist`);
      return t;
    },
    listTasks: (query = {}) => store.listTasks(query),
    stats: (recentFailures = 5) =>
      store.stats(clock.now(), Math.max(0, Math.min(100, Number(recentFailures) || 0))),
    failedSince: (after, limit = 500) => store.failedSince(after, Math.max(1, Math.min(5000, limit))),
    metrics: (windowMs = 3600_000) => store.metrics(clock.now(), windowMs),
    async throughputSeries(range = '1h') {
      const now = clock.now();
      const { bucketMs, count } = SERIES_SHAPES[range];
      return seriesFrom(await store.finishedSeries(now, bucketMs, count), now, range);
    },
    retry: (ids) => changing(store.retry(ids, clock.now())),
    async retryFailed(filter = {}) {
      const out = await ops.actOnMatching({
        action: 'retry',
        filter: { ...filter, status: ['failed'] },
        max: Number.MAX_SAFE_INTEGER,
      });
      return out.ids;
    },
    failureCounts: async () => countByCause(await store.failedByError()),
    workers: () => store.leaseHolders(),
    async groupStats() {
      const now = clock.now();
      const [waits, metrics] = await Promise.all([
        store.oldestWaiting(now),
        store.metrics(now, GROUP_STATS_WINDOW_MS),
      ]);
      return groupStatsOf(waits, metrics.byGroup);
    },
    async actOnMatching({ action, filter, max, throughId, dryRun }) {
      const out = await store.actOnMatching(action, filter, clock.now(), {
        max,
        dryRun: dryRun ?? false,
        ...(throughId !== undefined ? { throughId } : {}),
      });
      if (dryRun) return out;
      core.cancelRequested(out.requested);
      core.tasksChanged([...out.ids, ...out.requested]);
      return out;
    },
    async cancel(ids) {
      const out = await store.cancel(ids, clock.now());
      core.cancelRequested(out.requested);
      core.tasksChanged([...out.cancelled, ...out.requested]);
      return out;
    },
    remove: (ids) => changing(store.remove(ids)),
    async setPriority(id, priority) {
      const t = await store.setPriority(id, priority, clock.now());
      core.tasksChanged([t.id]);
      return t;
    },
    updateGroup: (name, update) => limits(store.updateGroup(name, update)),
    updateSettings: (update) => limits(store.updateSettings(update)),
    setResource: (name, capacity) => limits(store.setResource(name, capacity)),
    async removeResource(name) {
      if (!(await limits(store.removeResource(name))))
        throw new NotFoundError(`resource "${name}" does not exist`);
    },
    resources: async () => (await store.stats(clock.now(), 0)).resources,
    setGate: (group, update) => limits(store.setGate(group, update)),
    async removeGate(group) {
      if (!(await limits(store.removeGate(group))))
        throw new NotFoundError(group === null ? 'the queue has no gate' : `group "${group}" has no gate`);
    },
    async pause(group) {
      if (group === undefined) await ops.updateSettings({ paused: true });
      else await ops.updateGroup(group, { paused: true });
    },
    async resume(group) {
      if (group === undefined) await ops.updateSettings({ paused: false });
      else await ops.updateGroup(group, { paused: false });
    },
    async purge(olderThanMs) {
      const ms = olderThanMs ?? (await store.settings()).retentionDays * DAY;
      return store.purgeFinished(clock.now() - ms);
    },
  };
  return ops;
}
