/**
 * Runs `semaforo` in-process (runCli, io injected) on a temp queue file, and the checks the
 * hostile-argv tests make of an outcome: a clean one-line refusal, or a task that is what the
 * options said.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'vitest';
import type { Task } from '../../shared/domain.ts';
import { runCli } from '../../electron/cli/program.ts';
import type { CliIo } from '../../electron/cli/io.ts';
import { tempDir, testEngine } from '../helpers.ts';
import { optionValue } from './argv-arbitraries.ts';

export interface Outcome {
  code: number;
  out: string;
  err: string;
}

/**
 * A queue file and a way to run `semaforo ARGS` on it in this process. `--db` and `--handlers`
 * are always given (an environment variable of the developer's shell must not pick another file),
 * and a signal arrives at once when `signalAtOnce`, so `work` and `serve` stop as soon as they start.
 */
export async function sandbox({ signalAtOnce = false } = {}) {
  const dir = tempDir();
  const db = path.join(dir, 'queue.db');
  const handlers = path.join(dir, 'handlers');
  fs.mkdirSync(handlers);
  const engine = await testEngine({ file: db });
  const run = async (args: readonly string[], stdin = ''): Promise<Outcome> => {
    let out = '';
    let err = '';
    const io: CliIo = {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      stdin: Readable.from(stdin ? [stdin] : []),
      env: { SEMAFORO_HOME: dir },
      interactive: false,
      onSignal: (handler) => {
        if (!signalAtOnce) return () => {};
        const t = setImmediate(() => handler('SIGTERM'));
        return () => clearImmediate(t);
      },
    };
    const code = await runCli(['--db', db, '--handlers', handlers, ...args], io);
    return { code, out, err };
  };
  return { dir, db, engine, run };
}

/**
 * The first stderr line of a refusal names what to change: an option (`--priority`), an
 * argument (`id[2]`, `command`), a field of --payload or of a --stdin line, or, from commander
 * itself, the unknown option or command or the missing argument.
 */
const NAMES_IT =
  /^(semaforo: (--[a-z][a-z-]*(\[\d+\])?|payload(\.\S+?)?|id(\[\d+\])?|ids\[\d+\]|command|name|group|stdin|line \d+(: \S+?)?|tasks\[\d+\](\.\S+?)?): \S|semaforo: (unknown option '[^']+'|unknown command '[^']+'|option '[^']+' argument (missing|'.*' is invalid)|too many arguments|missing required argument '[^']+'|required option|option '[^']+' cannot be used with option '[^']+'))/s;

export function expectCleanRefusal(o: Outcome, argv: readonly string[]) {
  const what = JSON.stringify(argv).slice(0, 300);
  expect(o.code, `${what}\n${o.err}`).toBe(2);
  const lines = o.err.split('\n').filter((l) => l !== '');
  expect(lines.length, what).toBeGreaterThan(0);
  expect(lines[0], what).toMatch(NAMES_IT);
  // One line (commander's hint, and any "did you mean", end the same line).
  const hint = /^\((add --help for usage|Did you mean .+\?)\)$/;
  expect(
    lines.slice(1).filter((l) => !hint.test(l)),
    `${what}\n${o.err}`,
  ).toEqual([]);
  expect(o.out, what).toBe('');
}

/** What an enqueued task must look like: inside every limit, and what the options in `argv` said. */
export function expectSaneTask(task: Task, argv: readonly string[]) {
  const what = JSON.stringify(argv).slice(0, 300);
  expect(Number.isInteger(task.priority) && task.priority >= 0 && task.priority <= 9, what).toBe(true);
  expect(Number.isInteger(task.maxAttempts) && task.maxAttempts >= 1 && task.maxAttempts <= 100, what).toBe(
    true,
  );
  expect(task.timeout === null || (Number.isInteger(task.timeout) && task.timeout >= 1), what).toBe(true);
  expect(Number.isFinite(task.runAt) && task.runAt >= 0, what).toBe(true);
  expect(task.name.length > 0 && task.name.length <= 200 && !/\p{Cs}/u.test(task.name), what).toBe(true);
  const priority = optionValue(argv, '--priority');
  if (priority !== undefined) expect(task.priority, what).toBe(Number(priority) || 0); // -0 is 0
  const attempts = optionValue(argv, '--max-attempts');
  if (attempts !== undefined) expect(task.maxAttempts, what).toBe(Number(attempts));
  const group = optionValue(argv, '--group');
  if (group !== undefined) expect(task.group, what).toBe(group);
  const name = optionValue(argv, '--name');
  if (name !== undefined) expect(task.name, what).toBe(name);
}
