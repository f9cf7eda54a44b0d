/**
 * The `shell` kind: runs one of the user's commands as the user. No shell unless asked, so
 * arguments reach the program exactly as given; output goes to the attempt's history; a timeout
 * or cancel ends the whole process tree, not just the first process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { isatty } from 'node:tty';
import type { JsonValue } from '../../../shared/domain.ts';
import { formatElapsed } from '../../../shared/durations.ts';
import { PermanentError, RetryAfterError } from '../errors.ts';
import { commandLabel } from '../policy/default-name.ts';
import { ATTEMPT_TAG_VAR, attemptTag, stopAttempt } from './attempt-tag.ts';
import { dyingWithWorker } from './death-signal.ts';
import { killTree, spawnsOwnGroup } from './process-tree.ts';
import { LazyPayload } from './payload.ts';
import type { ShellPayload } from './payload-schemas.ts';
import type { Handler, HandlerContext } from './registry.ts';
import { quickShellPayload } from './shell-payload-quick.ts';
import { RetryMarker, shellThrottle } from './throttle.ts';

export type { ShellPayload };

export interface ShellOptions {
  /** how long a process tree gets between SIGTERM and SIGKILL */
  killGraceMs?: number;
  /** how long to wait for the output pipes after the command exited (a background child may hold them) */
  pipeGraceMs?: number;
  /**
   * Give the command this process's stdin/stdout/stderr instead of capturing its output
   * (`semaforo run` in a terminal). Nothing reaches the history then.
   */
  inheritStdio?: boolean;
  /** told how the command ended, e.g. so `semaforo run` can exit with the same code */
  onExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

const TAIL_CHARS = 2000;
const LINE_MAX = 500;

/** The last non-blank line of `s`, bounded, for error messages and results. */
function lastLine(s: string): string | null {
  const lines = s.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line) return line.length > LINE_MAX ? `…${line.slice(-LINE_MAX)}` : line;
  }
  return null;
}

/**
 * The command as an error names it: the error is a notification's body and the webhook's
 * task.error, so its credentials are hidden as in a default name, and it is cut to a label.
 */
function display(p: ShellPayload): string {
  return commandLabel([p.command, ...(p.args ?? [])]);
}

/** Why the program could not be started, as the user should read it. */
function spawnFailure(err: NodeJS.ErrnoException, p: ShellPayload): Error {
  // the program alone (may be a whole `--shell` script, so hidden and cut as well)
  const program = commandLabel([p.command]);
  switch (err.code) {
    case 'ENOENT':
      return new PermanentError(`command not found: "${program}" (no such file, or not on PATH)`);
    case 'EACCES':
      return new PermanentError(`cannot run "${program}": permission denied (is it executable?)`);
    case 'EINVAL':
      return new PermanentError(
        `cannot run "${program}" directly: ${err.message} (scripts such as .cmd need shell: true)`,
      );
    default:
      // EAGAIN, EMFILE, ENOMEM: the machine is busy; another attempt may work.
      return new Error(`could not start "${program}": ${err.message}`);
  }
}

/** Keeps the tail of a stream's text, decoding UTF-8 across chunk boundaries. */
class StreamText {
  bytes = 0;
  tail = '';
  private readonly decoder = new StringDecoder('utf8');
  private readonly onText: (s: string) => void;
  constructor(onText: (s: string) => void) {
    this.onText = onText;
  }
  write(chunk: Buffer): void {
    this.bytes += chunk.length;
    this.emit(this.decoder.write(chunk));
  }
  end(): void {
    this.emit(this.decoder.end());
  }
  private emit(s: string): void {
    if (!s) return;
    this.onText(s);
    this.tail = (this.tail + s).slice(-TAIL_CHARS);
  }
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves when the process exited and its pipes closed (or `pipeGraceMs` after it exited). */
function whenEnded(child: ChildProcess, pipeGraceMs: number): Promise<Ended> {
  return new Promise((resolve, reject) => {
    let spawned = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    child.once('spawn', () => (spawned = true));
    child.on('error', (err) => {
      if (!spawned) reject(err);
    });
    child.once('exit', (code, signal) => {
      timer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve({ code, signal });
      }, pipeGraceMs);
    });
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

interface Settings {
  killGraceMs: number;
  pipeGraceMs: number;
  inheritStdio: boolean;
  onExit: ShellOptions['onExit'];
}

async function runCommand(p: ShellPayload, ctx: HandlerContext, o: Settings): Promise<JsonValue> {
  ctx.signal.throwIfAborted();
  if (p.cwd !== undefined && !fs.statSync(p.cwd, { throwIfNoEntry: false })?.isDirectory()) {
    throw new PermanentError(`cwd "${p.cwd}" is not an existing folder`);
  }
  const tag = ctx.worker !== undefined ? attemptTag(ctx.worker, ctx.task.id, ctx.attempt) : null;
  const env = {
    ...process.env,
    ...p.env,
    // Last, so a payload cannot hide a process from the worker that must stop it.
    ...(tag !== null && { [ATTEMPT_TAG_VAR]: tag }),
  };
  const [file, argv] = commandLine(p);
  // A command on the user's terminal (`semaforo run` typed by hand) stays in the terminal's
  // foreground process group: in a group of its own it would be stopped when it reads the
  // terminal, and Ctrl-C would not reach it. Only then is the tree not ours to kill as a group.
  // (isatty, not process.stdin.isTTY: a stdin that is a file or /dev/null, as under cron, would be
  // opened as a stream for the question, loading fs/promises and readline.)
  const ownGroup = spawnsOwnGroup && !(o.inheritStdio && isatty(0));
  let child: ChildProcess;
  try {
    const [program, programArgs] = dyingWithWorker(file, argv, env, p.cwd);
    child = spawn(program, programArgs, {
      cwd: p.cwd,
      env,
      shell: p.shell === true && isWindows,
      detached: ownGroup,
      stdio: o.inheritStdio ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
  } catch (err) {
    throw spawnFailure(err as NodeJS.ErrnoException, p);
  }
  const outMarker = new RetryMarker();
  const errMarker = new RetryMarker();
  const stdout = new StreamText((s) => (ctx.log(s), outMarker.feed(s)));
  const stderr = new StreamText((s) => (ctx.log(s), errMarker.feed(s)));
  child.stdout?.on('data', (b: Buffer) => stdout.write(b));
  child.stderr?.on('data', (b: Buffer) => stderr.write(b));
  const ended = whenEnded(child, o.pipeGraceMs);
  // Its own group only: a command left in the terminal's group is not ours to stop.
  if (ownGroup && child.pid !== undefined) ctx.processGroup?.(child.pid);

  // What the attempt left behind: its group, then anything carrying its tag (a setsid'ed
  // grandchild, or every descendant of a child on the user's terminal, which has no group of
  // its own to signal).
  const stopLeftovers = async () => {
    if (ownGroup && child.pid !== undefined) await killTree(child.pid, o.killGraceMs);
    if (tag !== null) await stopAttempt(tag, o.killGraceMs);
  };
  let killing: Promise<void> | null = null;
  const onAbort = () => {
    if (child.pid === undefined || killing) return;
    killing = ownGroup ? stopLeftovers() : killChild(child, o.killGraceMs).then(stopLeftovers);
  };
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  let result: Ended;
  try {
    result = await ended;
  } catch (err) {
    throw spawnFailure(err as NodeJS.ErrnoException, p);
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    ctx.processGroup?.(null);
  }
  // Settle only once the whole tree is gone, so a new attempt never overlaps the old one. A
  // failed exit may be retried, so what it left in the background goes too; a success's
  // background processes are left alone (started on purpose, and nothing runs the task again).
  if (killing) await killing;
  else if (result.code !== 0) await stopLeftovers();
  stdout.end();
  stderr.end();
  o.onExit?.(result.code, result.signal);
  if (ctx.signal.aborted) throw ctx.signal.reason;

  if (result.code === 0) {
    return {
      exitCode: 0,
      stdoutBytes: stdout.bytes,
      stderrBytes: stderr.bytes,
      lastLine: lastLine(stdout.tail),
    };
  }
  outMarker.end();
  errMarker.end();
  const throttle = shellThrottle(result.code, errMarker.value !== null ? errMarker : outMarker);
  if (throttle)
    throw new RetryAfterError(
      throttle.ms,
      `"${display(p)}" asked to wait ${formatElapsed(throttle.ms)} (${throttle.why})`,
      { guessed: throttle.guessed },
    );
  const why = lastLine(stderr.tail);
  if (result.code === null) {
    throw new Error(`"${display(p)}" was killed by ${result.signal ?? 'a signal'}${why ? `: ${why}` : ''}`);
  }
  throw new Error(`"${display(p)}" exited with code ${result.code}${why ? `: ${why}` : ''}`);
}

const isWindows = process.platform === 'win32';

/** A POSIX shell word that the shell reads back as exactly `s`. */
const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/**
 * What to spawn. With `shell: true` the command is a command line for /bin/sh and each of `args`
 * is appended quoted, so it reaches the program as given (on Windows cmd.exe has no quoting that
 * holds for every program: there they are joined unquoted, as Node does).
 */
function commandLine(p: ShellPayload): [string, string[]] {
  const args = p.args ?? [];
  if (!p.shell) return [p.command, args];
  if (isWindows) return [[p.command, ...args].join(' '), []];
  return ['/bin/sh', ['-c', [p.command, ...args.map(shellQuote)].join(' ')]];
}

/** SIGTERM, then SIGKILL after `graceMs` if it is still there. */
function killChild(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Built once: the schema module loads at most once per process. */
const SHELL_PAYLOAD = new LazyPayload<ShellPayload>(
  async () => (await import('./payload-schemas.ts')).shellPayload,
  quickShellPayload,
);

export function createShellHandler(options: ShellOptions = {}): Handler<ShellPayload> {
  const o: Settings = {
    killGraceMs: options.killGraceMs ?? 2000,
    pipeGraceMs: options.pipeGraceMs ?? 1000,
    inheritStdio: options.inheritStdio ?? false,
    onExit: options.onExit,
  };
  return {
    kind: 'shell',
    description:
      'run {command, args[], cwd?, env?} without a shell (unless shell: true); exit code 0 is success',
    payload: SHELL_PAYLOAD,
    run: (payload, ctx) => runCommand(payload, ctx, o),
  };
}

export const shellHandler = createShellHandler();
