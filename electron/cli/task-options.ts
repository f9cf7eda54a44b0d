/**
 * The task options shared by `enqueue`, `run` and `schedule add`, and their translation into a
 * task spec. The spec is then validated by the engine with the shared schema, so the CLI only
 * turns text into values here and names the option when it cannot.
 */
import { Option, type Command } from 'commander';
import type { JsonValue } from '../../shared/domain.ts';
import { durationProblem, parseDuration } from '../../shared/durations.ts';
import { ValidationError } from '../../shared/errors.ts';
import { commandLabel } from '../core/policy/default-name.ts';

export interface TaskOptions {
  kind?: string;
  name?: string;
  group?: string;
  priority?: string;
  maxAttempts?: string;
  timeout?: string;
  delay?: string;
  at?: string;
  unique?: string;
  payload?: string;
  cwd?: string;
  shell?: boolean;
  uses?: string;
}

/** `timing: false` leaves out --delay/--at/--unique (a schedule's due times give those). */
export function addTaskOptions(cmd: Command, { kind = true, timing = true } = {}): Command {
  if (kind) cmd.option('-k, --kind <kind>', 'which handler runs it (shell when a command follows --)');
  cmd
    .option(
      '-n, --name <name>',
      'a label shown in lists (default: the command, credentials hidden, or the kind)',
    )
    .option('-g, --group <group>', 'the group whose limits apply', 'default')
    .option('-p, --priority <0-9>', '0 runs first', '5')
    .option('--max-attempts <n>', 'attempts before the task fails for good')
    .option('--timeout <dur>', 'abort an attempt after this long (500ms, 30s, 5m, 2h)')
    .option(
      '--uses <list>',
      'named resources it holds while it runs: main-db, or cpu:2,nas (weight 1 if left out)',
    );
  if (timing)
    cmd
      .addOption(new Option('--delay <dur>', 'start no sooner than this from now').conflicts('at'))
      .option('--at <iso8601>', 'start no sooner than this time, e.g. 2026-12-03T03:47:00Z')
      .option('--unique <key>', 'enqueue nothing if a task with this key is not finished yet');
  return cmd
    .option('--payload <json>', 'the payload as JSON (merged under the command for shell)')
    .option('--cwd <dir>', 'working directory of a shell command')
    .option(
      '--shell',
      "run the command through the system shell (pipes, globs, &&): -- 'du -sh * | sort -h'",
    );
}

/** Engine field paths (`maxAttempts`, `tasks[3].priority`) as the user typed them: `--max-attempts`. */
export type OptionNames = Readonly<Record<string, string>>;

export const TASK_OPTION_NAMES: OptionNames = {
  kind: '--kind',
  name: '--name',
  group: '--group',
  priority: '--priority',
  maxAttempts: '--max-attempts',
  timeout: '--timeout',
  timeoutMs: '--timeout',
  delay: '--delay',
  delayMs: '--delay',
  runAt: '--at',
  unique: '--unique',
  uses: '--uses',
  'payload.cwd': '--cwd',
};

function optionPath(path: string, names: OptionNames): string {
  // hasOwn: a path such as `constructor` must not find Object.prototype's members.
  if (Object.hasOwn(names, path)) return names[path]!;
  const list = /^([^[]+)(\[\d+\])$/.exec(path); // an item of a list option: --notify-groups[1]
  return list && Object.hasOwn(names, list[1]!) ? names[list[1]!]! + list[2]! : path;
}

/**
 * Runs `f` (parsing, then the engine call); a ValidationError it throws or rejects with names the
 * options the user typed instead of the field names, so the one-line error points at what to
 * change (`--priority: must be …`).
 */
export async function namingOptions<T>(names: OptionNames, f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof ValidationError)
      throw new ValidationError(err.issues.map((i) => ({ ...i, path: optionPath(i.path, names) })));
    throw err;
  }
}

function bad(option: string, message: string): never {
  throw new ValidationError([{ path: option, message }]);
}

/**
 * A whole number given as option text. Signed numbers pass through so the engine's schema can
 * say what range is allowed (e.g. priority 0 to 9); counts and ids use `unsigned`.
 */
export function wholeNumber(option: string, text: string, { signed = false } = {}): number {
  if (!(signed ? /^-?\d+$/ : /^\d+$/).test(text.trim())) bad(option, `"${text}" is not a whole number`);
  return Number(text);
}

function int(option: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : wholeNumber(option, text, { signed: true });
}

export function duration(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === null) bad(option, `"${text}" ${durationProblem(text)}`);
  return ms;
}

function payloadOf(text: string | undefined): Record<string, JsonValue> {
  if (text === undefined) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    bad('--payload', `is not valid JSON (${(err as Error).message})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) bad('--payload', 'must be a JSON object');
  return v as Record<string, JsonValue>;
}

/** Builds a task spec from the options and the words after `--` (a shell command). */
export function taskSpecFrom(opts: TaskOptions, command: readonly string[], forcedKind?: string): unknown {
  const kind = forcedKind ?? opts.kind ?? (command.length > 0 ? 'shell' : undefined);
  if (!kind) bad('--kind', 'give --kind KIND, or a command after -- to run it as a shell task');
  const payload = payloadOf(opts.payload);
  if (command.length > 0) {
    if (kind !== 'shell') bad('--kind', `a command after -- makes a shell task, not "${kind}"`);
    payload.command = command[0]!;
    payload.args = command.slice(1);
  }
  if (opts.shell) {
    if (kind !== 'shell') bad('--shell', 'applies to shell tasks only');
    payload.shell = true;
  }
  if (opts.cwd !== undefined) {
    if (kind !== 'shell') bad('--cwd', 'applies to shell tasks only');
    payload.cwd = opts.cwd;
  }
  const spec: Record<string, unknown> = { kind, payload };
  if (opts.name !== undefined) spec.name = opts.name;
  else if (command.length > 0) spec.name = commandLabel(command);
  if (opts.group !== undefined) spec.group = opts.group;
  const put = (key: string, value: unknown) => {
    if (value !== undefined) spec[key] = value;
  };
  put('priority', int('--priority', opts.priority));
  put('maxAttempts', int('--max-attempts', opts.maxAttempts));
  put('timeoutMs', duration('--timeout', opts.timeout));
  put('delayMs', duration('--delay', opts.delay));
  if (opts.at !== undefined) {
    const t = Date.parse(opts.at);
    if (Number.isNaN(t) || !/[zZ]|[+-]\d\d:?\d\d$/.test(opts.at))
      bad('--at', `"${opts.at}" is not an ISO 8601 time with a zone, e.g. 2026-12-03T03:47:00Z`);
    spec.runAt = t;
  }
  put('unique', opts.unique);
  // The text as typed: the spec's schema parses it, so --stdin, HTTP and IPC say the same.
  put('uses', opts.uses);
  return spec;
}

/**
 * A shell task enqueued here runs where it was asked for, as in a terminal (`./job.sh`), not in
 * whatever folder a worker happens to run: its payload gets this process's folder unless it
 * names one.
 */
export function withCallerCwd(spec: unknown): unknown {
  if (typeof spec !== 'object' || spec === null) return spec;
  const { kind, payload } = spec as { kind?: unknown; payload?: unknown };
  if (kind !== 'shell' || typeof payload !== 'object' || payload === null || Array.isArray(payload))
    return spec;
  if ('cwd' in payload) return spec;
  return { ...spec, payload: { ...payload, cwd: process.cwd() } };
}

/** A limit given as option text: a whole number, or `none` (null); undefined when not given. */
export function limitOption(name: string, text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'none') return null;
  if (!/^\d+$/.test(text)) bad(name, `"${text}" is not a whole number or none`);
  return Number(text);
}
