/**
 * On Linux, a shell task's command is started through `setpriv --pdeathsig TERM` (util-linux,
 * present on Debian, Ubuntu, Fedora...): the kernel then sends it SIGTERM the moment the worker
 * that started it dies, SIGKILL included (prctl PR_SET_PDEATHSIG). It reaches that one process
 * only, not what it started: the rest of the tree is found by its attempt tag and stopped by the
 * next worker (attempt-tag.ts). macOS and Windows have no such signal; there only the next
 * worker's stop holds (macOS: nothing, the tag cannot be read there; see README).
 *
 * setpriv execs the command in place (same pid), so process groups and signals work as before;
 * the command is looked up here first so "not found" and "not executable" still read as such.
 */
import fs from 'node:fs';
import path from 'node:path';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'];

let wrapper: string | null | undefined;

/** The setpriv that supports --pdeathsig here, or null (looked up once). */
function setpriv(): string | null {
  if (wrapper !== undefined) return wrapper;
  wrapper = null;
  if (process.platform !== 'linux') return wrapper;
  for (const file of SETPRIV) if (supportsPdeathsig(file)) return (wrapper = file);
  return wrapper;
}

/**
 * Whether `file` is an executable setpriv that knows --pdeathsig (util-linux 2.33 and later):
 * its option table holds the name. Read, not run: running it once per process cost a `run`
 * 10-150 ms of wall time on a busy machine (test/bench/RESULTS.md, section 8).
 */
export function supportsPdeathsig(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.readFileSync(file).includes('pdeathsig');
  } catch {
    return false;
  }
}

/** An error as spawn reports it, so the caller's messages stay the same. */
function spawnError(code: 'ENOENT' | 'EACCES', command: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`spawn ${command} ${code}`);
  err.code = code;
  return err;
}

/** Where `command` is, as execvp would find it (PATH from `env`); throws ENOENT or EACCES. */
function locate(command: string, env: NodeJS.ProcessEnv, cwd: string | undefined): string {
  const candidates = command.includes('/')
    ? [path.resolve(cwd ?? process.cwd(), command)]
    : (env.PATH ?? '/usr/local/bin:/usr/bin:/bin')
        .split(':')
        .map((dir) => path.resolve(cwd ?? process.cwd(), dir || '.', command));
  let denied = false;
  for (const file of candidates) {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st || st.isDirectory()) {
      denied ||= st?.isDirectory() === true;
      continue;
    }
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      denied = true;
    }
  }
  throw spawnError(denied ? 'EACCES' : 'ENOENT', command);
}

/**
 * The program and arguments to spawn for `file argv` so that it dies with this process where
 * the platform allows; unchanged elsewhere. Throws ENOENT/EACCES errors as spawn would.
 */
export function dyingWithWorker(
  file: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string | undefined,
): [string, string[]] {
  const wrap = setpriv();
  if (wrap === null) return [file, [...argv]];
  return [wrap, ['--pdeathsig', 'TERM', '--', locate(file, env, cwd), ...argv]];
}
