/**
 * Runs one measurement ("trial") in a fresh child process, so every system starts from the same
 * state: no JIT warm-up, heap, timers or open handles left over from the previous one.
 * The child (worker-child.ts) prints its figures as one `BENCH_RESULT {json}` line on stdout.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const CHILD = path.join(import.meta.dirname, 'worker-child.ts');
const MARK = 'BENCH_RESULT ';

const extraExecArgv: string[] = [];

/** Flags every trial child gets on top of the defaults (e.g. `--cpu-prof`). */
export function addChildExecArgv(...flags: string[]): void {
  extraExecArgv.push(...flags);
}

export function childExecArgv(): string[] {
  return ['--no-warnings', '--expose-gc', ...extraExecArgv];
}

export type TrialResult = Record<string, unknown>;

export function runTrial(trial: string, args: object, timeoutMs = 300_000): Promise<TrialResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...childExecArgv(), CHILD, trial, JSON.stringify(args)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`trial ${trial} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const line = out
        .split('\n')
        .reverse()
        .find((l) => l.startsWith(MARK));
      if (code !== 0 || !line) {
        reject(new Error(`trial ${trial} exited with ${signal ?? code}; output: ${out.slice(-500)}`));
        return;
      }
      resolve(JSON.parse(line.slice(MARK.length)) as TrialResult);
    });
  });
}

/** Called by the child to hand its figures back. */
export function reportResult(result: object): void {
  process.stdout.write(`${MARK}${JSON.stringify(result)}\n`);
}

export function num(r: TrialResult, key: string): number {
  const v = r[key];
  if (typeof v !== 'number') throw new Error(`trial result has no number "${key}": ${JSON.stringify(r)}`);
  return v;
}
