/**
 * Killing a command together with everything it started. A shell task's child is spawned as the
 * leader of its own process group (POSIX) so one signal to the group reaches its grandchildren
 * too; on Windows `taskkill /T` walks the tree instead.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const isWindows = process.platform === 'win32';

/** Whether children are spawned detached, i.e. as leaders of their own process group. */
export const spawnsOwnGroup = !isWindows;

/** Sends `signal` to the process group led by `pid`. False when the group is already empty. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return false;
    // EPERM: a member changed user (setuid); nothing more we can do to it.
    return code === 'EPERM';
  }
}

/** Whether any process of the group led by `pid` still exists (zombies included). */
export function groupAlive(pid: number): boolean {
  return signalGroup(pid, 0);
}

/**
 * Whether a process of the group led by `pid` still runs. A zombie has ended: it only waits to
 * be collected, and where nothing collects orphans (an init that does not reap, as in some
 * containers) it stays for good, so waiting for it to go would wait out every deadline.
 */
export function groupRunning(pid: number): boolean {
  if (!groupAlive(pid)) return false;
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue; // processes only
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile, or not a process
    }
    // After the command, which may hold spaces and parentheses: state, ppid, pgrp.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pid && state !== 'Z') return true;
  }
  return false;
}

/** Forcibly ends the tree of `pid` on Windows; resolves when taskkill is done. */
function taskkillTree(pid: number): Promise<void> {
  return new Promise((resolve) => {
    const tk = spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
    tk.on('error', () => resolve());
    tk.on('close', () => resolve());
  });
}

/**
 * Stops the tree of `pid`: SIGCONT (it may be paused) and SIGTERM to the whole group, then SIGKILL to whatever still runs after
 * `graceMs`. Resolves once nothing of the group runs, so a task reported cancelled or timed out
 * leaves no process behind and a retry cannot overlap it. After SIGKILL it waits at most
 * KILL_WAIT_MS more: the kernel ends killed processes asynchronously, and one stuck in an
 * uninterruptible call cannot be waited out.
 */
export async function killTree(pid: number, graceMs: number): Promise<void> {
  if (isWindows) {
    await taskkillTree(pid);
    return;
  }
  // A tree a machine gate stopped (SIGSTOP) must run again to act on its SIGTERM.
  signalGroup(pid, 'SIGCONT');
  if (!signalGroup(pid, 'SIGTERM')) return;
  if (await groupEndsWithin(pid, graceMs)) return;
  signalGroup(pid, 'SIGKILL');
  await groupEndsWithin(pid, KILL_WAIT_MS);
}

const KILL_WAIT_MS = 2000;

/** Whether nothing of the group led by `pid` runs any more within `ms`. */
async function groupEndsWithin(pid: number, ms: number): Promise<boolean> {
  // No event says "the group has ended", so look every few milliseconds.
  const deadline = Date.now() + ms;
  while (groupRunning(pid)) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(25, left)));
  }
  return true;
}
