/**
 * Every process a shell task starts carries its attempt's tag in its environment
 * (`SEMAFORO_LEASE=<worker id> <task id> <attempt>`), inherited by the whole tree: children,
 * grandchildren, and those that left the process group with `setsid` or double-forked into the
 * background. A worker that outlives its predecessor finds what that one left running by this
 * tag (Linux: /proc/PID/environ), stops it, and only then lets the task run again.
 *
 * What escapes the tag: a program that clears or rewrites its environment before exec
 * (`env -i`, a daemon that sanitises it), and processes of another user (their environ is not
 * readable, unless the worker runs as root). Those are outside "the tree" the queue can stop.
 */
import fs from 'node:fs';
import { monotonicMs } from '../clock.ts';

export const ATTEMPT_TAG_VAR = 'SEMAFORO_LEASE';

export function attemptTag(workerId: string, taskId: number, attempt: number): string {
  return `${workerId} ${taskId} ${attempt}`;
}

/** Whether processes can be found by their tag here (Linux with a readable /proc). */
export const canFindTagged = process.platform === 'linux' && fs.existsSync('/proc/self/environ');

/**
 * The pids of live (not zombie) processes whose environment holds an attempt tag of `workerId`.
 * Empty where the platform offers no way to read another process's environment.
 */
export function findTagged(workerId: string): number[] {
  return findByTag(`${workerId} `);
}

/** The pids of live processes of one attempt (its whole tag, `attemptTag`). */
export function findAttempt(tag: string): number[] {
  return findByTag(`${tag}\0`); // each environ entry ends with a NUL, the last one too
}

function findByTag(start: string): number[] {
  if (!canFindTagged) return [];
  const needle = Buffer.from(`\0${ATTEMPT_TAG_VAR}=${start}`);
  const first = needle.subarray(1);
  const found: number[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let env: Buffer;
    try {
      env = fs.readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue; // gone meanwhile, or another user's
    }
    if (!(env.includes(needle) || env.subarray(0, first.length).equals(first))) continue;
    if (!hasEnded(pid)) found.push(pid);
  }
  return found;
}

/** Gone, or a zombie (it has ended and only waits for its parent to collect it). */
export function hasEnded(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true; // gone
  }
}

/**
 * Stops every process tagged for `workerId`: SIGCONT and SIGTERM, then SIGKILL to what still runs after
 * `graceMs`, looking again each round (a process may fork while it is being stopped). Resolves
 * true once none is left, false if some survive SIGKILL for `killWaitMs` (stuck in the kernel,
 * or not ours to signal); the caller then keeps holding the tasks and tries again later.
 */
export function stopTagged(workerId: string, graceMs: number, killWaitMs = 2000): Promise<boolean> {
  return stopFound(() => findTagged(workerId), graceMs, killWaitMs);
}

/** As stopTagged, for what one attempt (`tag`) left: e.g. a setsid'ed grandchild at its timeout. */
export function stopAttempt(tag: string, graceMs: number, killWaitMs = 2000): Promise<boolean> {
  return stopFound(() => findAttempt(tag), graceMs, killWaitMs);
}

async function stopFound(find: () => number[], graceMs: number, killWaitMs: number): Promise<boolean> {
  const signalAll = (...signals: NodeJS.Signals[]) => {
    const pids = find(); // a scan of /proc: once for all the signals
    for (const pid of pids)
      for (const signal of signals) {
        try {
          process.kill(pid, signal);
        } catch {
          // gone meanwhile, or EPERM (it changed user): findTagged decides whether it still counts
        }
      }
    return pids.length;
  };
  // A worker that died with a task paused by a machine gate (SIGSTOP) left it stopped: it must
  // run again to act on its SIGTERM.
  if (signalAll('SIGCONT', 'SIGTERM') === 0) return true;
  const pause = () => new Promise((resolve) => setTimeout(resolve, 25));
  for (const deadline = monotonicMs() + graceMs; monotonicMs() < deadline; await pause()) {
    if (find().length === 0) return true;
  }
  for (const deadline = monotonicMs() + killWaitMs; monotonicMs() < deadline; await pause()) {
    if (signalAll('SIGKILL') === 0) return true;
  }
  return find().length === 0;
}
