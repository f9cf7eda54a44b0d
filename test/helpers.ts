import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, expect } from 'vitest';
import { createEngine, type Engine, type EngineOptions } from '../electron/core/engine.ts';

const engines = new Set<Engine>();
const children = new Set<ChildProcess>();
const dirs: string[] = [];

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'semaforo-test-'));
  dirs.push(dir);
  return dir;
}

/** An engine on a fresh database file in a temp dir, with fast retries for tests. */
export async function testEngine(options: Partial<EngineOptions> = {}): Promise<Engine> {
  const engine = await createEngine({
    file: options.file ?? path.join(tempDir(), 'queue.db'),
    backoff: { baseMs: 20, capMs: 200, floorMs: 10, maxRetryAfter: 5 },
    pollIntervalMs: 10,
    ...options,
  });
  engines.add(engine);
  return engine;
}

export function spawnNode(args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, ['--no-warnings', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** spawnNode, resolved once the child prints `ready` (rejected with its stderr if it exits first). */
export async function spawnReady(args: string[], env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawnNode(args, env);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`${args[0]} exited ${code}: ${stderr}`)));
  });
  return child;
}

/** A task as the store takes it (validated, with defaults), for tests below the engine. */
export { task as newTaskRow } from './conformance/shapes.ts';

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Waits for `predicate` (which may be async) to hold, checking every 20 ms. */
export async function waitFor<T>(
  predicate: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await predicate();
    if (v) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

afterEach(async () => {
  const leftChildren = [...children];
  for (const c of leftChildren) c.kill('SIGKILL');
  // Which engines still dispatch once the test is over: a dispatcher left running is a leak
  // (timers, leases, a file held open), even when the assertions passed.
  const leftRunning = [...engines].filter((e) => e.dispatching).length;
  for (const e of engines) await e.close(1000);
  engines.clear();
  children.clear();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  // A test that leaves a child process behind has a bug, even if its assertions passed.
  expect(
    leftChildren.filter((c) => c.exitCode === null && c.signalCode === null).length,
    'child processes left running',
  ).toBe(0);
  expect(leftRunning, 'engines left dispatching (stop or close them in the test)').toBe(0);
});
