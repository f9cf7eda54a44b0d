/** Which lease owners this machine may judge by their pid: only its own, not a namesake's. */
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isOwnerProcessGone,
  isOwnerProcessRunning,
  newWorkerIdentity,
  thisHost,
} from '../../electron/core/worker-identity.ts';

const saved = process.env.SEMAFORO_HOST_ID;
afterEach(() => {
  if (saved === undefined) delete process.env.SEMAFORO_HOST_ID;
  else process.env.SEMAFORO_HOST_ID = saved;
});

// Above Linux's pid_max: a pid that exists on no machine here.
const NO_SUCH_PID = 4_194_400;

describe('host identity', () => {
  it('treats an owner with only the same hostname as another machine', () => {
    delete process.env.SEMAFORO_HOST_ID;
    const namesake = { id: `worker@${os.hostname()}:1:ab`, pid: NO_SUCH_PID, host: os.hostname() };
    if (process.platform === 'linux') expect(thisHost()).not.toBe(os.hostname());
    expect(thisHost().startsWith(os.hostname())).toBe(true);
    expect(isOwnerProcessGone(namesake)).toBe(process.platform !== 'linux');
    expect(isOwnerProcessGone({ ...namesake, host: thisHost() })).toBe(true);
  });

  it('judges its own processes by pid, and names itself in new identities', () => {
    delete process.env.SEMAFORO_HOST_ID;
    const me = newWorkerIdentity('t');
    expect(me.host).toBe(thisHost());
    expect(me.id.startsWith(`t@${os.hostname()}:${process.pid}:`)).toBe(true);
    const parent = { id: 'p', pid: process.ppid, host: thisHost(), leaseExpiresAt: Date.now() };
    expect(isOwnerProcessRunning(parent)).toBe(true);
    expect(isOwnerProcessRunning({ ...parent, host: 'elsewhere' })).toBe(false);
  });

  it('takes SEMAFORO_HOST_ID as the whole identity, names it in ids, and refuses a bad one in one line', () => {
    process.env.SEMAFORO_HOST_ID = 'host-a';
    const me = newWorkerIdentity('work');
    expect(me.host).toBe('host-a');
    expect(me.id.startsWith(`work@host-a:${process.pid}:`)).toBe(true);
    expect(isOwnerProcessGone({ pid: NO_SUCH_PID, host: 'host-a' })).toBe(true);
    expect(isOwnerProcessGone({ pid: NO_SUCH_PID, host: 'host-b' })).toBe(false);
    for (const bad of ['', 'two words', 'x'.repeat(201)]) {
      process.env.SEMAFORO_HOST_ID = bad;
      expect(() => thisHost()).toThrow(/^invalid SEMAFORO_HOST_ID: [^\n]+$/);
      // refused when the identity is made, not first when a dispatcher reads it
      expect(() => newWorkerIdentity('list')).toThrow(/^invalid SEMAFORO_HOST_ID: /);
    }
  });
});
