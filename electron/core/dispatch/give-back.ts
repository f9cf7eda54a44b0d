/**
 * What a stopping dispatcher does with the tasks still running at its deadline: abort them, wait
 * a short grace, and give their leases back (not counted as attempts) so another worker takes
 * them. A handler that has not returned by then may still be doing its work (JavaScript cannot be
 * stopped from outside): its lease is kept, no longer renewed, until it returns, so no worker on
 * this machine runs the task beside it; if this process ends first, the reaper takes the task
 * back once the process is gone.
 */
import type { Logger } from '../logger.ts';
import type { TaskStore, WorkerIdentity } from '../store/task-store.ts';
import { ShutdownError, type Running } from './running-task.ts';

export interface GiveBackParts {
  store: Pick<TaskStore, 'releaseLeases'>;
  worker: WorkerIdentity;
  logger: Logger;
  /** the time to stamp the release with */
  dueNow: () => number;
  onChange: (ids: number[]) => void;
  describeError: (err: unknown) => string;
  /** how long aborted handlers get to return */
  graceMs: number;
  /** forgets a task in the dispatcher's books */
  drop: (entry: Running) => void;
}

/**
 * 'idle' once `idle` resolves, or 'deadline' after `ms`. Node fires a timer longer than 2^31-1
 * ms (~24.8 days) after 1 ms (`work --grace 30d` released every running task at once): clamped,
 * as in TickLoop.wakeIn. Not unref'd: while results cannot be written (a full disk) nothing else
 * may keep the process up, and it would end mid-stop with the stop still awaited.
 */
export async function idleOrDeadline(idle: Promise<void>, ms: number): Promise<'idle' | 'deadline'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'deadline'>((r) => {
    timer = setTimeout(() => r('deadline'), Math.min(ms, 2 ** 31 - 1));
  });
  try {
    return await Promise.race([idle.then(() => 'idle' as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export async function giveBack(left: readonly Running[], p: GiveBackParts): Promise<void> {
  for (const r of left) r.abort.abort(new ShutdownError());
  await idleOrDeadline(
    Promise.all(left.map((r) => r.handlerDone)).then(() => {}),
    p.graceMs,
  );
  const stuck = left.filter((r) => !r.settled);
  for (const r of left) p.drop(r);
  try {
    await release(
      left.filter((r) => !stuck.includes(r)),
      p,
    );
  } catch (err) {
    p.logger.error(`could not release leases (they will expire): ${p.describeError(err)}`);
  }
  for (const r of stuck) {
    p.logger.warn(
      `task ${r.claim.task.id}'s handler ignored its abort on stop: its lease is kept until it returns ` +
        '(or this process ends), so the task does not run twice at once',
    );
    // The store may be closed by then: the lease then expires and this process's end frees it.
    void r.handlerDone.then(() => release([r], p)).catch(() => {});
  }
}

async function release(entries: readonly Running[], p: GiveBackParts): Promise<void> {
  if (entries.length === 0) return;
  const ids = entries.map((r) => r.claim.task.id);
  const released = await p.store.releaseLeases(p.worker, ids, p.dueNow());
  if (released.length) p.onChange(released);
}
