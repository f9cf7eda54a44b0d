/**
 * What this machine can afford now, as machine gates judge it: the 1-minute load average per
 * core, available memory, and whether it runs on mains power. Read from /proc and /sys (Linux);
 * the folders are parameters so tests point them at fakes. A reading that cannot be had is null.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface MachineReading {
  /** 1-minute load average divided by the cores */
  loadPerCore: number | null;
  /** bytes the kernel says can be had without swapping (MemAvailable) */
  availableMemory: number | null;
  /** on mains power; null: no mains supply is known here (a desktop, a VM, not Linux) */
  onAc: boolean | null;
  /**
   * ms since the user last touched keyboard or mouse; null: not known here. Only the tray app
   * can tell (Electron's powerMonitor, which it injects: withIdleTime); /proc cannot.
   */
  idleMs: number | null;
}

export interface MachineFolders {
  proc: string;
  sys: string;
  cores: number;
}

const LINUX: MachineFolders = { proc: '/proc', sys: '/sys', cores: os.availableParallelism() };

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

export function readLoadPerCore(f: MachineFolders = LINUX): number | null {
  const text = readText(path.join(f.proc, 'loadavg'));
  const load = text === null ? Number.NaN : Number(text.split(/\s+/, 1)[0]);
  return Number.isFinite(load) && f.cores > 0 ? load / f.cores : null;
}

export function readAvailableMemory(f: MachineFolders = LINUX): number | null {
  const m = /^MemAvailable:\s+(\d+)\s*kB/m.exec(readText(path.join(f.proc, 'meminfo')) ?? '');
  return m ? Number(m[1]) * 1024 : null;
}

/** Any mains supply online: on AC; mains supplies all offline: on battery; none: unknown. */
export function readOnAc(f: MachineFolders = LINUX): boolean | null {
  const dir = path.join(f.sys, 'class', 'power_supply');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return null;
  }
  const mains = names.filter((n) => readText(path.join(dir, n, 'type'))?.trim() === 'Mains');
  if (mains.length === 0) return null;
  return mains.some((n) => readText(path.join(dir, n, 'online'))?.trim() === '1');
}

export function readMachine(f: MachineFolders = LINUX): MachineReading {
  return {
    loadPerCore: readLoadPerCore(f),
    availableMemory: readAvailableMemory(f),
    onAc: readOnAc(f),
    idleMs: null,
  };
}

/** `read` with the idle time `readIdleMs` gives (the tray app's powerMonitor) instead of none. */
export function withIdleTime(
  read: () => MachineReading,
  readIdleMs: () => number | null,
): () => MachineReading {
  return () => ({ ...read(), idleMs: readIdleMs() });
}
