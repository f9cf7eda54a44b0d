/**
 * What `semaforo work` tells its user while it runs: a live line on a terminal, each start and
 * end with -v, and, for --drain, what is left that it waits for or cannot run.
 */
import type { Task } from '../../shared/domain.ts';
import { formatElapsed } from '../../shared/durations.ts';
import type { Engine } from '../core/engine.ts';
import { relativeTime } from './format.ts';

const WAITING = ['pending', 'retrying'] as const;

/** Counts of the whole queue, with done/failed since `base` (this worker's start). */
export async function liveLine(
  engine: Engine,
  base: { done: number; failed: number },
  now: number,
): Promise<string> {
  const c = (await engine.stats(0)).counts;
  const next = (await engine.listTasks({ status: [...WAITING], sort: 'runAt', order: 'asc', limit: 1 }))
    .tasks[0];
  const due =
    next === undefined ? '' : `, next due ${next.runAt <= now ? 'now' : relativeTime(next.runAt, now)}`;
  return (
    `running ${c.running}, waiting ${c.pending + c.retrying}, ` +
    `done ${Math.max(0, c.done - base.done)}, failed ${Math.max(0, c.failed - base.failed)}${due}`
  );
}

/**
 * Tasks waiting for a kind this worker has no handler for: they stay queued for a worker that
 * has it. Counted as every waiting task minus those of the kinds known here.
 */
export async function unknownKindsWaiting(
  engine: Engine,
  known: readonly string[],
): Promise<{ count: number; kinds: string[] }> {
  const total = (await engine.listTasks({ status: [...WAITING], limit: 1 })).total;
  let knownCount = 0;
  for (const kind of known)
    knownCount += (await engine.listTasks({ status: [...WAITING], kind, limit: 1 })).total;
  const count = total - knownCount;
  if (count <= 0) return { count: 0, kinds: [] };
  const knownSet = new Set(known);
  const kinds = new Set<string>();
  for (const t of (await engine.listTasks({ status: [...WAITING], limit: 1000 })).tasks)
    if (!knownSet.has(t.kind)) kinds.add(t.kind);
  return { count, kinds: [...kinds].sort() };
}

/** What a drain with nothing to run now waits for: `task 7, due in 4m (at …)`, or null. */
export async function drainWaitsFor(
  engine: Engine,
  now: number,
): Promise<{ id: number; text: string } | null> {
  const c = (await engine.stats(0)).counts;
  if (c.running > 0) return null;
  // The first not due yet (those due now wait for a slot, a limit or a worker of their kind).
  const next = (
    await engine.listTasks({ status: [...WAITING], sort: 'runAt', order: 'asc', limit: 100 })
  ).tasks.find((t) => t.runAt > now + 1000);
  if (next === undefined) return null;
  return {
    id: next.id,
    text:
      `waiting for task ${next.id} (${next.name}), due ` +
      `${relativeTime(next.runAt, now)} at ${new Date(next.runAt).toISOString()}`,
  };
}

/** -v: one stderr line per start and end of the tasks this process changed. */
export function taskLog(engine: Engine, write: (line: string) => void): (ids: readonly number[]) => void {
  const seen = new Map<number, Task['status']>();
  const logOne = async (id: number) => {
    let t: Task;
    try {
      t = await engine.getTask(id);
    } catch {
      return; // deleted meanwhile
    }
    if (seen.get(id) === t.status) return;
    seen.set(id, t.status);
    const label = `task ${t.id} (${t.kind}: ${t.name})`;
    const took =
      t.startedAt !== null && t.finishedAt !== null
        ? ` after ${formatElapsed(t.finishedAt - t.startedAt)}`
        : '';
    if (t.status === 'running') write(`started ${label}, attempt ${t.attempts} of ${t.maxAttempts}`);
    else if (t.status === 'done') write(`done ${label}${took}`);
    else if (t.status === 'failed') write(`failed ${label}${took}: ${firstLine(t.error)}`);
    else if (t.status === 'cancelled') write(`cancelled ${label}`);
    else if (t.status === 'retrying')
      write(`will retry ${label} ${relativeTime(t.runAt, Date.now())}: ${firstLine(t.error)}`);
    if (t.status !== 'running' && t.status !== 'retrying') seen.delete(id);
  };
  // One batch after another, so the lines keep the order of the changes.
  let chain = Promise.resolve();
  return (ids) => {
    chain = chain.then(async () => {
      for (const id of ids) await logOne(id);
    });
  };
}

function firstLine(s: string | null): string {
  return (s ?? '').split('\n')[0]!.slice(0, 200);
}
