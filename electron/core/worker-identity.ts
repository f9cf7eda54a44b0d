import crypto from 'node:crypto';
import os from 'node:os';
import type { WorkerIdentity } from './store/task-store.ts';

/** A fresh identity for one dispatcher: host, pid and a random part (pids get reused). */
export function newWorkerIdentity(label = 'worker'): WorkerIdentity {
  const host = os.hostname();
  return {
    id: `${label}@${host}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`,
    pid: process.pid,
    host,
  };
}

/**
 * True only when the lease owner certainly is a process on this machine that no longer exists.
 * Anything uncertain (another host, no pid, EPERM: alive but not ours) waits for the lease to expire.
 */
export function isOwnerProcessGone(owner: { pid: number | null; host: string | null }): boolean {
  if (owner.pid === null || owner.host !== os.hostname() || owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
