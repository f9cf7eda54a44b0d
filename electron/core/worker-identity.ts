import fs from 'node:fs';
import os from 'node:os';
import { hasEnded } from './handlers/attempt-tag.ts';
import { sha256Hex } from './sha256.ts';
import type { LeaseHolder, WorkerIdentity } from './store/task-store.ts';

/**
 * A fresh identity for one dispatcher: host, pid and a random part (pids get reused). The id
 * names SEMAFORO_HOST_ID when given, so history says which pretended host ran an attempt.
 */
export function newWorkerIdentity(label = 'worker'): WorkerIdentity {
  // Made when first read: an engine that never dispatches nor reserves (`enqueue`, `list`)
  // then never reads the boot id. A given SEMAFORO_HOST_ID is checked now (it needs no boot id),
  // so a bad one is refused by every command, as before the identity was made lazily.
  if (process.env.SEMAFORO_HOST_ID !== undefined) thisHost();
  let id: string | undefined;
  let host: string | undefined;
  return {
    get id() {
      if (id === undefined) {
        const shown = process.env.SEMAFORO_HOST_ID === undefined ? os.hostname() : thisHost();
        // Not a secret, only apart from an earlier process given the same pid.
        const random = Math.floor(Math.random() * 2 ** 32);
        id = `${label}@${shown}:${process.pid}:${random.toString(16).padStart(8, '0')}`;
      }
      return id;
    },
    pid: process.pid,
    // Read once, as the id is: it goes into every claim, and must not move under a live lease.
    get host() {
      return (host ??= thisHost());
    },
  };
}

let machine: string | undefined;

/**
 * This machine as leases name it, the only hosts whose pids may be checked here. A hostname alone
 * is shared by cloned VMs, containers on the host network and two boards named alike: a live owner
 * there, with a pid that does not exist here, would be taken for dead and its task run twice. So
 * the boot id (new at every boot, unique per machine) and the pid namespace (containers on one
 * kernel) go with it, where the system has them (Linux). SEMAFORO_HOST_ID replaces it all (tests
 * playing several machines).
 */
export function thisHost(): string {
  const given = process.env.SEMAFORO_HOST_ID;
  if (given !== undefined) {
    if (!/^[\x21-\x7e]{1,200}$/.test(given))
      throw new Error('invalid SEMAFORO_HOST_ID: use 1 to 200 printable characters without spaces');
    return given;
  }
  machine ??= machineHost();
  return machine;
}

function machineHost(): string {
  const boot = readTrimmed('/proc/sys/kernel/random/boot_id');
  let pidns: string | null = null;
  try {
    pidns = String(fs.statSync('/proc/self/ns/pid').ino);
  } catch {
    // no pid namespaces here
  }
  if (boot === null && pidns === null) return os.hostname();
  const tag = sha256Hex(`${boot ?? ''}/${pidns ?? ''}`).slice(0, 12);
  return `${os.hostname()}#${tag}`;
}

function readTrimmed(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

const isLinux = process.platform === 'linux';

/** Whether `pid` exists here (EPERM: it does, but is not ours); a zombie has ended (Linux). */
function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  return !(isLinux && hasEnded(pid));
}

/**
 * True only when the lease owner certainly is a process on this machine that no longer exists.
 * Anything uncertain (another host, no pid, EPERM: alive but not ours) waits for the lease to expire.
 */
export function isOwnerProcessGone(owner: { pid: number | null; host: string | null }): boolean {
  if (owner.pid === null || owner.host !== thisHost() || owner.pid === process.pid) return false;
  return !pidRuns(owner.pid);
}

/**
 * Whether the lease owner's process still runs on this machine (another process than this one).
 * On Linux a process that started after the owner's latest lease is another one that got the
 * same pid, not the owner.
 */
export function isOwnerProcessRunning(owner: LeaseHolder): boolean {
  const { pid } = owner;
  if (pid === null || owner.host !== thisHost() || pid === process.pid || !pidRuns(pid)) return false;
  const started = isLinux ? processStartedAt(pid) : null;
  return !(started !== null && typeof owner.leaseExpiresAt === 'number' && started > owner.leaseExpiresAt);
}

/** When `pid` started, in epoch ms (Linux; null when unknown). */
function processStartedAt(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime, in clock ticks since boot) is the 20th after the command's ')'.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const btime = /^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'))?.[1];
    // USER_HZ is 100 on every Linux that Node runs on.
    return btime === undefined || !Number.isFinite(ticks) ? null : Number(btime) * 1000 + ticks * 10;
  } catch {
    return null;
  }
}
