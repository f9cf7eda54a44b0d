/**
 * The engine-facing side of the contract (shared/api.ts): one function per request. Transports
 * (Electron IPC, HTTP) call `handleRequest` with the request name and the raw input from outside;
 * it validates once, here, and resolves with the output or rejects with a ValidationError/NotFoundError.
 * The engine takes the parsed inputs as they are.
 */
import {
  isRequestName,
  requestSchemas,
  type ApiOutput,
  type ApiParsedInput,
  type RequestName,
} from '../../shared/api.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { backendOf } from '../../shared/queue-place.ts';
import { parseInput } from '../../shared/schemas.ts';
import type { Engine } from './engine.ts';
import { gateStateText, gateViews } from './machine/gate-view.ts';

export type QueueService = {
  [K in RequestName]: (input: ApiParsedInput<K>) => ApiOutput<K> | Promise<ApiOutput<K>>;
};

export function createQueueService(engine: Engine): QueueService {
  const pauseOrResume = (paused: boolean, group: string | undefined) => {
    if (group === undefined) return engine.updateSettings({ paused });
    return engine.updateGroup(group, { paused });
  };
  return {
    stats: (i) => engine.stats(i?.recentFailures),
    metrics: (i) => engine.metrics(i?.windowMs),
    throughputSeries: (i) => engine.throughputSeries(i?.range),
    listTasks: (i) => engine.listTasks(i ?? {}),
    getTask: (i) => engine.getTask(i.id),
    enqueue: (i) => engine.enqueue(i),
    retry: async (i) => ({ ids: await engine.retry(i.ids) }),
    retryFailed: async (i) => ({ ids: await engine.retryFailed(i ?? {}) }),
    failureCounts: () => engine.failureCounts(),
    actOnMatching: async (i) => {
      const out = await engine.actOnMatching(i);
      const all = [...out.ids, ...out.requested];
      return {
        count: out.ids.length,
        stopping: out.requested.length,
        lastId: all.length ? Math.max(...all) : null,
      };
    },
    cancel: (i) => engine.cancel(i.ids),
    remove: async (i) => ({ ids: await engine.remove(i.ids) }),
    setPriority: (i) => engine.setPriority(i.id, i.priority),
    pause: (i) => pauseOrResume(true, i?.group),
    resume: (i) => pauseOrResume(false, i?.group),
    updateGroup: (i) => engine.updateGroup(i.name, i.update),
    settings: async () => (await engine.stats(0)).settings,
    updateSettings: (i) => engine.updateSettings(i),
    purge: async (i) => ({ count: await engine.purge(i.olderThanMs) }),
    kinds: () => engine.registry.list(),
    listSchedules: () => engine.listSchedules(),
    getSchedule: (i) => engine.getSchedule(i.name),
    createSchedule: (i) => engine.createSchedule(i),
    updateSchedule: (i) => engine.updateSchedule(i.name, i.schedule),
    pauseSchedule: (i) => engine.pauseSchedule(i.name),
    resumeSchedule: (i) => engine.resumeSchedule(i.name),
    removeSchedule: async (i) => {
      await engine.removeSchedule(i.name);
      return { name: i.name };
    },
    runScheduleNow: (i) => engine.runScheduleNow(i.name),
    previewSchedule: (i) => engine.previewSchedule(i),
    workers: () => engine.workers(),
    groupStats: () => engine.groupStats(),
    gateStates: async () =>
      gateViews(await engine.store.listGates(), engine.machineReading()).map((v) => ({
        group: v.gate.group,
        closed: v.closed,
        state: gateStateText(v),
      })),
    queueInfo: () => ({ backend: backendOf(engine.store.location), location: engine.store.location }),
  };
}

/** Validates `input` for request `name` and runs it. Unknown names are a NotFoundError. */
export async function handleRequest(service: QueueService, name: string, input: unknown): Promise<unknown> {
  if (!isRequestName(name)) throw new NotFoundError(`unknown request "${name}"`);
  return call(service, name, input);
}

function call<K extends RequestName>(service: QueueService, name: K, input: unknown): Promise<ApiOutput<K>> {
  const parsed = parseInput(requestSchemas[name], input) as ApiParsedInput<K>;
  return Promise.resolve(service[name](parsed));
}
