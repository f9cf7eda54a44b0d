/**
 * `semaforo schedule update`: a schedule as it is, with what the options name changed. The
 * engine replaces a schedule whole (as the dashboard's edit form does), so the spec is the stored
 * schedule turned back into a spec, the options laid over it; the engine validates the result,
 * and a damaged schedule is repaired by an update that gives what could not be read.
 */
import type { JsonValue, Schedule, TaskTemplate } from '../../shared/domain.ts';
import { ValidationError } from '../../shared/errors.ts';
import { formatUses } from '../../shared/resources.ts';
import { duration, taskSpecFrom, wholeNumber, withCallerCwd, type TaskOptions } from './task-options.ts';

/** The task options as `update` reads them: `--no-timeout` and `--no-uses` drop a field. */
export type UpdateTaskOptions = Omit<TaskOptions, 'timeout' | 'uses'> & {
  timeout?: string | false;
  uses?: string | false;
};

export interface UpdateOptions extends UpdateTaskOptions {
  rename?: string;
  cron?: string;
  tz?: string;
  every?: string;
  missed?: string;
  overlap?: string;
  grace?: string | false;
  maxRuntime?: string | false;
  minRuntime?: string | false;
}

function bad(option: string, message: string): never {
  throw new ValidationError([{ path: option, message }]);
}

const isObject = (v: JsonValue): v is Record<string, JsonValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `given(flag)`: whether the user typed it (options with a default, --group and --priority,
 * are there either way). `command`: the words after `--`, a new shell command.
 */
export function updatedSpec(
  s: Schedule,
  o: UpdateOptions,
  given: (option: 'group' | 'priority') => boolean,
  command: readonly string[],
): Record<string, unknown> {
  return {
    name: o.rename ?? s.name,
    ...recurrence(s, o),
    // A template that could not be read at all is made again from the options, as `add` makes it.
    task:
      s.problem !== undefined && s.task.kind === ''
        ? newTask(o, command)
        : updatedTask(s.task, o, given, command),
    missed: o.missed ?? s.missed,
    overlap: o.overlap ?? s.overlap,
    enabled: s.enabled,
    alarms: {
      graceMs: alarm('--grace', o.grace, s.alarms.graceMs),
      maxRuntimeMs: alarm('--max-runtime', o.maxRuntime, s.alarms.maxRuntimeMs),
      minRuntimeMs: alarm('--min-runtime', o.minRuntime, s.alarms.minRuntimeMs),
    },
  };
}

/** A new --cron or --every replaces the recurrence; --tz alone moves a cron line to that zone. */
function recurrence(s: Schedule, o: UpdateOptions): Record<string, unknown> {
  if (o.cron !== undefined && o.every !== undefined) bad('--cron', 'give either --cron EXPR or --every DUR');
  if (o.every !== undefined) {
    if (o.tz !== undefined) bad('--tz', 'goes with --cron only');
    return { everyMs: duration('--every', o.every) };
  }
  const cron = o.cron ?? s.cron;
  if (cron === null) {
    if (o.tz !== undefined) bad('--tz', `goes with --cron only (${s.name} runs at an interval)`);
    return { everyMs: s.everyMs ?? undefined };
  }
  // A new cron line keeps the zone it was in unless --tz says another.
  const timezone = o.tz ?? s.timezone;
  return timezone === null ? { cron } : { cron, timezone };
}

/** `--grace 10m` sets it, `--no-grace` drops it, absent keeps what was there. */
function alarm(option: string, text: string | false | undefined, kept: number | null): number | null {
  if (text === false) return null;
  return text === undefined ? kept : duration(option, text)!;
}

function newTask(o: UpdateOptions, command: readonly string[]): unknown {
  const opts = { ...o, timeout: o.timeout || undefined, uses: o.uses || undefined };
  const task = withCallerCwd(taskSpecFrom(opts, command)) as Record<string, unknown>;
  // its tasks are named after the schedule unless --name says otherwise
  if (o.name === undefined) delete task.name;
  return task;
}

function updatedTask(
  t: TaskTemplate,
  o: UpdateOptions,
  given: (option: 'group' | 'priority') => boolean,
  command: readonly string[],
): Record<string, unknown> {
  // A command after -- makes a shell task, as in `schedule add`.
  const kind = o.kind ?? (command.length > 0 ? 'shell' : t.kind);
  // Another kind's payload means nothing to this one.
  let payload: JsonValue = kind === t.kind ? t.payload : {};
  if (o.payload !== undefined || command.length > 0 || o.shell || o.cwd !== undefined) {
    // --payload replaces it; a command, --cwd and --shell go over it (checked as `add` checks them)
    const text = o.payload ?? (isObject(payload) ? JSON.stringify(payload) : undefined);
    const spec = taskSpecFrom({ kind, payload: text, cwd: o.cwd, shell: o.shell }, command) as {
      payload: JsonValue;
    };
    // A new command or payload runs where it was given, as `add` records it, unless it names a folder.
    payload = (withCallerCwd({ kind, payload: spec.payload }) as { payload: JsonValue }).payload;
  }
  const timeout = o.timeout === false ? null : (duration('--timeout', o.timeout) ?? t.timeout);
  const uses = o.uses === false ? undefined : (o.uses ?? (t.uses?.length ? formatUses(t.uses) : undefined));
  const name = o.name ?? t.name;
  return {
    kind,
    ...(name !== null && { name }),
    group: given('group') && o.group !== undefined ? o.group : t.group,
    priority:
      given('priority') && o.priority !== undefined
        ? wholeNumber('--priority', o.priority, { signed: true })
        : t.priority,
    maxAttempts:
      o.maxAttempts === undefined
        ? t.maxAttempts
        : wholeNumber('--max-attempts', o.maxAttempts, { signed: true }),
    ...(timeout !== null && { timeoutMs: timeout }),
    ...(uses !== undefined && { uses }),
    payload,
  };
}
