/**
 * Every `semaforo` command: its help line and how to load it. A call loads only the module of
 * the command it names (the top-level help and `--version` load none), so a cron line's `run`
 * does not pay for `serve`'s HTTP server or `schedule`'s cron parser.
 */
import type { Command } from 'commander';
import type { CliContext } from './context.ts';

export interface CommandEntry {
  /** the term in the top-level help, as Commander would print it for the real command */
  term: string;
  summary: string;
  load: (ctx: CliContext) => Promise<Command>;
}

const pause = async (ctx: CliContext, verb: 'pause' | 'resume') =>
  (await import('./commands/operate.ts')).pauseCommands(ctx).find((c) => c.name() === verb)!;

export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  enqueue: {
    term: 'enqueue [options] [command...]',
    summary: 'add a task to the queue and print its id (with --json, the task)',
    load: async (ctx) => (await import('./commands/enqueue.ts')).enqueueCommand(ctx),
  },
  run: {
    term: 'run [options] <command...>',
    summary: "run a command under the queue's limits, here, with this terminal; exit with its code",
    load: async (ctx) => (await import('./commands/run.ts')).runCommand(ctx),
  },
  work: {
    term: 'work [options]',
    summary: 'run a dispatcher here until stopped (SIGINT/SIGTERM drain gracefully)',
    load: async (ctx) => (await import('./commands/work.ts')).workCommand(ctx),
  },
  list: {
    term: 'list [options]',
    summary: 'list tasks, newest first',
    load: async (ctx) => (await import('./commands/tasks.ts')).listCommand(ctx),
  },
  show: {
    term: 'show <id>',
    summary: 'one task with its whole history (attempts, errors, output)',
    load: async (ctx) => (await import('./commands/tasks.ts')).showCommand(ctx),
  },
  stats: {
    term: 'stats [options]',
    summary: 'counts per status and per group, limits, recent failures',
    load: async (ctx) => (await import('./commands/tasks.ts')).statsCommand(ctx),
  },
  workers: {
    term: 'workers',
    summary: 'who holds which leases: each worker (id, host, pid) and the tasks it runs, since when',
    load: async (ctx) => (await import('./commands/workers.ts')).workersCommand(ctx),
  },
  retry: {
    term: 'retry [options] [id...]',
    summary: 'send tasks back to the queue with fresh attempts: the given ids, or every failed one',
    load: async (ctx) => (await import('./commands/operate.ts')).retryCommand(ctx),
  },
  cancel: {
    term: 'cancel <id...>',
    summary: 'cancel tasks: waiting ones at once, running ones are stopped by their worker',
    load: async (ctx) => (await import('./commands/operate.ts')).cancelCommand(ctx),
  },
  delete: {
    term: 'delete <id...>',
    summary: 'delete tasks and their history (running tasks must be cancelled first)',
    load: async (ctx) => (await import('./commands/operate.ts')).deleteCommand(ctx),
  },
  pause: {
    term: 'pause [group]',
    summary: 'stop starting tasks, in the whole queue or one group (running tasks finish)',
    load: (ctx) => pause(ctx, 'pause'),
  },
  resume: {
    term: 'resume [group]',
    summary: 'start tasks again, in the whole queue or one group',
    load: (ctx) => pause(ctx, 'resume'),
  },
  purge: {
    term: 'purge [options]',
    summary: 'delete finished tasks (done, failed, cancelled) that ended long enough ago',
    load: async (ctx) => (await import('./commands/operate.ts')).purgeCommand(ctx),
  },
  group: {
    term: 'group',
    summary: 'per-group limits: concurrency and rate, fixed or learned from the vendor (adaptive)',
    load: async (ctx) => (await import('./commands/group.ts')).groupCommand(ctx),
  },
  resource: {
    term: 'resource',
    summary: 'named resources: what tasks of any group share (a database, the CPUs), each with a capacity',
    load: async (ctx) => (await import('./commands/resource.ts')).resourceCommand(ctx),
  },
  gate: {
    term: 'gate',
    summary:
      "machine gates: no new start while the worker's machine is loaded, short of memory, on battery or in use",
    load: async (ctx) => (await import('./commands/gate.ts')).gateCommand(ctx),
  },
  settings: {
    term: 'settings [options]',
    summary: 'show or change the queue-wide settings',
    load: async (ctx) => (await import('./commands/operate.ts')).settingsCommand(ctx),
  },
  schedule: {
    term: 'schedule',
    summary:
      'recurring schedules: enqueue a task on cron or interval due times (run by the tray app, `work` and `serve`)',
    load: async (ctx) => (await import('./commands/schedule.ts')).scheduleCommand(ctx),
  },
  kinds: {
    term: 'kinds',
    summary: 'the task kinds a worker here can run, built-in and your own',
    load: async (ctx) => (await import('./commands/tasks.ts')).kindsCommand(ctx),
  },
  serve: {
    term: 'serve [options]',
    summary: 'serve the dashboard and its API over HTTP, and run a dispatcher',
    load: async (ctx) => (await import('./commands/serve.ts')).serveCommand(ctx),
  },
  adopt: {
    term: 'adopt [options]',
    summary:
      'put an existing crontab behind the queue: wrap its lines in `semaforo run`, or move them into schedules',
    load: async (ctx) => (await import('./commands/adopt.ts')).adoptCommand(ctx),
  },
  migrate: {
    term: 'migrate [options]',
    summary:
      'copy a queue file (tasks, history, groups, settings, schedules) into a PostgreSQL queue, and verify the counts',
    load: async (ctx) => (await import('./commands/migrate.ts')).migrateCommand(ctx),
  },
  where: {
    term: 'where',
    summary: 'say which queue file and handler folder this command line uses, and why (opens nothing)',
    load: async (ctx) => (await import('./commands/where.ts')).whereCommand(ctx),
  },
  'install-cli': {
    term: 'install-cli [options]',
    summary: "write a `semaforo` launcher into ~/.local/bin that runs this project's Node 22",
    load: async (ctx) => (await import('./commands/install-cli.ts')).installCliCommand(ctx),
  },
};

/** Global options that take a value, so the word after them is not the command's name. */
const VALUE_OPTIONS = new Set(['--db', '--handlers']);

/**
 * The command `args` names, as Commander will read it: the first word that is neither an
 * option nor an option's value (`help X` names X). Undefined when there is none.
 */
export function commandNamed(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return undefined;
    if (VALUE_OPTIONS.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    if (a === 'help') return args[i + 1];
    return a;
  }
  return undefined;
}
