/**
 * Short ways to write the tasks, workers, claims and finishes of the conformance tests (free of
 * vitest, so a child process can use them too).
 */
import type {
  ClaimedTask,
  Finish,
  NewTask,
  TickInput,
  WorkerIdentity,
} from '../../electron/core/store/task-store.ts';
import type { Store } from './backends.ts';

export const A: WorkerIdentity = { id: 'a@host:101:aa', pid: 101, host: 'host' };
export const B: WorkerIdentity = { id: 'b@host:102:bb', pid: 102, host: 'host' };
export const LEASE_MS = 30_000;

/** A task as the store takes it (validated, with defaults). */
export function task(overrides: Partial<NewTask> = {}): NewTask {
  return {
    kind: 'sleep',
    name: 'task',
    group: 'default',
    priority: 5,
    payload: '{"ms":0}',
    maxAttempts: 3,
    runAt: 0,
    timeout: null,
    unique: null,
    ...overrides,
  };
}

/** `n` tasks named `${prefix}0`... */
export function tasks(n: number, overrides: Partial<NewTask> = {}, prefix = 't'): NewTask[] {
  return Array.from({ length: n }, (_, i) => task({ name: `${prefix}${i}`, ...overrides }));
}

/** One tick at `now` with no finishes; the claimed tasks. */
export async function claim(
  store: Store,
  worker: WorkerIdentity,
  claimMax: number,
  now: number,
  more: Partial<TickInput> = {},
): Promise<ClaimedTask[]> {
  const out = await store.tick({
    now: () => now,
    worker,
    leaseMs: LEASE_MS,
    finishes: [],
    claimMax,
    ...more,
  });
  return out.claimed;
}

export function done(c: ClaimedTask, result: string | null = null, output: string | null = null): Finish {
  return {
    taskId: c.task.id,
    attempt: c.task.attempts,
    historyId: c.historyId,
    status: 'done',
    result,
    output,
  };
}

export function ended(
  c: ClaimedTask,
  status: 'retrying' | 'failed' | 'cancelled',
  outcome: 'failed' | 'retry' | 'retry-after' | 'timeout' | 'cancelled',
  more: { error?: string; runAt?: number; blockGroupUntil?: number; output?: string | null } = {},
): Finish {
  return {
    taskId: c.task.id,
    attempt: c.task.attempts,
    historyId: c.historyId,
    status,
    outcome,
    error: more.error ?? outcome,
    output: more.output ?? null,
    ...(more.runAt !== undefined ? { runAt: more.runAt } : {}),
    ...(more.blockGroupUntil !== undefined ? { blockGroupUntil: more.blockGroupUntil } : {}),
  };
}

/** Writes `finishes` as `worker` at `now` (claiming nothing); the finishes that applied. */
export async function finish(store: Store, worker: WorkerIdentity, now: number, ...finishes: Finish[]) {
  const out = await store.tick({ now: () => now, worker, leaseMs: LEASE_MS, finishes, claimMax: 0 });
  return out.applied;
}

export const names = (claimed: readonly ClaimedTask[]) => claimed.map((c) => c.task.name);
