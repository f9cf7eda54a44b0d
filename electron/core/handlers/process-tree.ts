/**
 * Killing a command together with everything it started. A shell task's child is spawned as the
 * leader of its own process group (POSIX) so one signal to the group reaches its grandchildren
 * too; on Windows `taskkill /T` walks the tree instead.
 */
import { spawn } from 'node:child_process';

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

/** Forcibly ends the tree of `pid` on Windows; resolves when taskkill is done. */
function taskkillTree(pid: number): Promise<void> {
  return new Promise((resolve) => {
    const tk = spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
    tk.on('error', () => resolve());
    tk.on('close', () => resolve());
  });
}

/**
 * Stops the tree of `pid`: SIGTERM to the whole group, then SIGKILL to whatever is left after
 * `graceMs`. Resolves once the group is empty or SIGKILL was sent (the kernel finishes the job).
 */
export async function killTree(pid: number, graceMs: number): Promise<void> {
  if (isWindows) {
    await taskkillTree(pid);
    return;
  }
  if (!signalGroup(pid, 'SIGTERM')) return;
  // No event says "the group is empty", so look every few milliseconds until the grace runs out.
  const deadline = Date.now() + graceMs;
  while (groupAlive(pid)) {
    const left = deadline - Date.now();
    if (left <= 0) {
      signalGroup(pid, 'SIGKILL');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(25, left)));
  }
}
