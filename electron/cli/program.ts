/**
 * The `semaforo` command line: the same engine as the tray app, for scripts, cron and headless
 * boxes. Exit codes: 0 ok, 1 failure (a task failed, something does not exist, the file cannot
 * be opened), 2 bad input (the one-line message names the option or field).
 */
import { Command, CommanderError, Help, Option } from 'commander';
import { boundEchoes } from '../../shared/echo.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import { SchemaTooNewError, StorageError } from '../core/errors.ts';
import { COMMANDS, commandNamed } from './command-table.ts';
import type { CliContext } from './context.ts';
import type { CliIo } from './io.ts';
import { printable } from './printable.ts';

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/**
 * The program for one call: the command `args` names is loaded and defined in full, every
 * other one is a stub that is only listed in the help.
 */
export async function buildProgram(ctx: CliContext | null, args: readonly string[]): Promise<Command> {
  const program = new Command('semaforo')
    .description(
      'A traffic light for your automations: one persistent queue with limits, retries and priorities.',
    )
    .version('0.1.0', '-V, --version')
    .addOption(
      new Option('--db <path>', 'the queue: a database file or a postgres:// URL').env('SEMAFORO_DB'),
    )
    .option('--json', 'machine-readable JSON on stdout')
    .addOption(new Option('--handlers <dir>', 'folder of your own task kinds').env('SEMAFORO_HANDLERS'))
    .option('-v, --verbose', 'log what the dispatcher does to stderr')
    .addHelpText(
      'after',
      `
The default database is the one the desktop app uses (per-user app data folder, or $SEMAFORO_HOME).
Exit codes: 0 ok, 1 failure, 2 bad input. \`semaforo run\` exits with its command's code.`,
    );
  const named = commandNamed(args);
  const stubs = new Set<Command>();
  for (const [name, entry] of Object.entries(COMMANDS)) {
    if (name === named && ctx) {
      program.addCommand(await entry.load(ctx));
    } else {
      const stub = new Command(name).description(entry.summary);
      stubs.add(stub);
      program.addCommand(stub);
    }
  }
  program.configureHelp({
    subcommandTerm(this: Help, c: Command) {
      return stubs.has(c) ? COMMANDS[c.name()]!.term : Help.prototype.subcommandTerm.call(this, c);
    },
  });
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
  write(`semaforo: ${printable(boundEchoes(first))} (${hints.join('; ')})\n`);
}

/** Runs the CLI with `args` (without node and script) and returns the exit code. */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  const named = commandNamed(args);
  // Only a call that names a command opens anything (the engine comes with the context).
  const ctx =
    named !== undefined && Object.hasOwn(COMMANDS, named)
      ? new (await import('./context.ts')).CliContext(io)
      : null;
  try {
    const program = await buildProgram(ctx, args);
    // Every command, however deep, reports errors the same way and never exits by itself.
    const configure = (c: Command) => {
      c.exitOverride()
        .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: commanderError })
        .configureHelp({ ...c.configureHelp(), showGlobalOptions: true });
      for (const sub of c.commands) configure(sub);
    };
    configure(program);
    await program.parseAsync(args, { from: 'user' });
    return ctx?.exitCode ?? EXIT.ok;
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
    io.err(`semaforo: ${printable(boundEchoes(messageOf(err)))}\n`);
    return err instanceof ValidationError ? EXIT.usage : EXIT.failure;
  } finally {
    await ctx?.closeAll();
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
