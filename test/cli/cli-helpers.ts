import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnNode, tempDir } from '../helpers.ts';
import { outputOf, type ProcessOutput } from '../process-output.ts';

export const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../bin/semaforo.js');

export type CliResult = ProcessOutput;

/** Runs `semaforo ARGS` as a user would: a separate process, its own stdio, exit code. */
export function cli(
  args: readonly string[],
  options: { db?: string; stdin?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: {
      ...process.env,
      SEMAFORO_HOME: options.db ? path.dirname(options.db) : tempDir(),
      ...(options.db ? { SEMAFORO_DB: options.db } : {}),
      ...options.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return outputOf(child, options.stdin ?? '');
}

/**
 * Starts a long-running `semaforo ARGS` (work, serve) on `db` as its own process, and resolves once
 * its stderr shows `readyText` (it is killed after the test if still running).
 */
export async function startCli(
  args: readonly string[],
  db: string,
  readyText: string,
  nodeFlags: readonly string[] = [],
): Promise<ChildProcess> {
  const child = spawnNode([...nodeFlags, BIN, '--db', db, ...args], { SEMAFORO_HOME: path.dirname(db) });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes(readyText)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`semaforo ${args.join(' ')} exited ${code}: ${stderr}`)));
  });
  return child;
}

export function json<T = unknown>(r: CliResult): T {
  if (r.code !== 0) throw new Error(`semaforo exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export function freshDb(): string {
  return path.join(tempDir(), 'queue.db');
}

/**
 * Runs `semaforo ARGS` on a real terminal (a pseudo-terminal from util-linux `script`): stdin,
 * stdout and stderr are all the tty, so the output comes back as one stream. `answer` is typed
 * once `prompt` shows.
 */
export function cliOnTty(
  args: readonly string[],
  db: string,
  { prompt, answer }: { prompt?: string; answer?: string } = {},
): Promise<{ code: number | null; output: string }> {
  const quoted = [process.execPath, BIN, '--db', db, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`);
  const child = spawn('script', ['-qec', quoted.join(' '), '/dev/null'], {
    env: { ...process.env, SEMAFORO_HOME: path.dirname(db) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let answered = false;
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
    if (prompt && !answered && output.includes(prompt)) {
      answered = true;
      child.stdin.write(`${answer ?? ''}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: output.replace(/\r/g, '') }));
  });
}
