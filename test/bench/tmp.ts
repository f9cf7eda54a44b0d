/** Temp dirs for benchmark files, removed when the process exits (even on Ctrl-C). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dirs = new Set<string>();
let hooked = false;

export function benchDir(prefix = 'semaforo-bench-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.add(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', cleanupDirs);
  }
  return dir;
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
}

export function cleanupDirs(): void {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs.clear();
}

/** Copies a SQLite file (checkpointed and closed, so the main file is all of it) to a fresh path. */
export function copyDb(template: string, into: string, name: string): string {
  const file = path.join(into, name);
  fs.copyFileSync(template, file);
  return file;
}

/** Runs `fn` on a private copy of `template`, removed afterwards. */
export async function withCopy<T>(template: string, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = benchDir();
  try {
    return await fn(copyDb(template, dir, path.basename(template)));
  } finally {
    removeDir(dir);
  }
}
