/**
 * The `semaforo` command line: the same engine as the tray app, for scripts, cron and headless
 * boxes. Exit codes: 0 ok, 1 failure (a task failed, something does not exist, the file cannot
 * be opened), 2 bad input (the one-line message names the option or field).
 */
import { Command, CommanderError, Option } from 'commander';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import { SchemaTooNewError, StorageError } from '../core/errors.ts';
import {
  cancelCommand,
  deleteCommand,
  groupCommand,
  pauseCommands,
  purgeCommand,
  retryCommand,
  settingsCommand,
} from './commands/operate.ts';
import { runCommand } from './commands/run.ts';
import { scheduleCommand } from './commands/schedule.ts';
import { serveCommand } from './commands/serve.ts';
import { enqueueCommand, kindsCommand, listCommand, showCommand, statsCommand } from './commands/tasks.ts';
import { whereCommand } from './commands/where.ts';
import { workCommand } from './commands/work.ts';
import { CliContext } from './context.ts';
import type { CliIo } from './io.ts';

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export function buildProgram(ctx: CliContext): Command {
  const io = ctx.ioHandle;
  const program = new Command('semaforo')
    .description(
      'A traffic light for your automations: one persistent queue with limits, retries and priorities.',
    )
    .version('0.1.0', '-V, --version')
    .addOption(new Option('--db <path>', 'the queue database file').env('SEMAFORO_DB'))
    .option('--json', 'machine-readable JSON on stdout')
    .addOption(new Option('--handlers <dir>', 'folder of your own task kinds').env('SEMAFORO_HANDLERS'))
    .option('-v, --verbose', 'log what the dispatcher does to stderr')
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .addHelpText(
      'after',
      `
The default database is the one the desktop app uses (per-user app data folder, or $SEMAFORO_HOME).
Exit codes: 0 ok, 1 failure, 2 bad input. \`semaforo run\` exits with its command's code.`,
    );
  const commands = [
    enqueueCommand(ctx),
    runCommand(ctx),
    workCommand(ctx),
    listCommand(ctx),
    showCommand(ctx),
    statsCommand(ctx),
    retryCommand(ctx),
    cancelCommand(ctx),
    deleteCommand(ctx),
    ...pauseCommands(ctx),
    purgeCommand(ctx),
    groupCommand(ctx),
    settingsCommand(ctx),
    scheduleCommand(ctx),
    kindsCommand(ctx),
    serveCommand(ctx),
    whereCommand(ctx),
  ];
  for (const c of commands) program.addCommand(c);
  // Every command, however deep, reports errors the same way and never exits by itself.
  const configure = (c: Command) => {
    c.exitOverride()
      .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: commanderError })
      .configureHelp({ showGlobalOptions: true });
    for (const sub of c.commands) configure(sub);
  };
  configure(program);
  return program;
}

/**
 * Commander's own errors as one line like every other: `semaforo: unknown command 'lst' (did you
 * mean list?; add --help for usage)`.
 */
function commanderError(text: string, write: (t: string) => void): void {
  const [first = '', ...rest] = text
    .trim()
    .replace(/^error: /, '')
    .split('\n');
  const hints = [
    ...rest.map((l) => l.replace(/^\((.*)\)$/, '$1').replace(/^Did/, 'did')),
    'add --help for usage',
  ];
  write(`semaforo: ${first} (${hints.join('; ')})\n`);
}

/** Runs the CLI with `args` (without node and script) and returns the exit code. */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  const ctx = new CliContext(io);
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(args, { from: 'user' });
    return ctx.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has printed help, the version or its own one-line error already.
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
      )
        return EXIT.ok;
      return EXIT.usage;
    }
    io.err(`semaforo: ${messageOf(err)}\n`);
    return err instanceof ValidationError ? EXIT.usage : EXIT.failure;
  } finally {
    await ctx.closeAll();
  }
}

function messageOf(err: unknown): string {
  if (err instanceof ValidationError || err instanceof NotFoundError || err instanceof SchemaTooNewError)
    return err.message;
  // SQLite writes a transaction whole or not at all: say so, the user wonders what half-happened.
  if (err instanceof StorageError)
    return err.message.startsWith('cannot write') ? `${err.message}; nothing was written` : err.message;
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'SQLITE_BUSY') return 'database busy: another process holds a long write; try again';
    if (code === 'SQLITE_NOTADB') return `${err.message} (is --db a Semaforo queue file?)`;
    if (code === 'SQLITE_CANTOPEN' || code === 'EACCES') return `cannot open the database: ${err.message}`;
    return err.message;
  }
  return String(err);
}
