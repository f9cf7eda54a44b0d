import type { ChildProcess } from 'node:child_process';

// Free of side effects (no vitest hooks), so the dashboard's e2e helpers (test/renderer/) can
// use it too.

export interface ProcessOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Everything a child process prints, and its exit code, once it has closed its output. */
export function outputOf(child: ChildProcess, stdin?: string): Promise<ProcessOutput> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A child may exit before it reads its input (a refusal, a `--help`): the write then fails
    // with EPIPE, which is no error of the test's; the exit code and output tell what happened.
    child.stdin?.on('error', () => {});
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}
