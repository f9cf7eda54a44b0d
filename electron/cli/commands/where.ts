/** `semaforo where`: which queue file (and handler folder) a command here would use, and why. */
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { defaultHandlersDir } from '../../core/paths.ts';
import type { CliContext } from '../context.ts';

export function whereCommand(ctx: CliContext): Command {
  const cmd = new Command('where').description(
    'say which queue file and handler folder this command line uses, and why (opens nothing)',
  );
  return cmd.action(() => {
    const env = ctx.ioHandle.env;
    const opts = cmd.optsWithGlobals<{ db?: string; handlers?: string }>();
    const db = path.resolve(ctx.dbPath(cmd));
    // Commander fills --db from SEMAFORO_DB itself; tell the two apart for the reader.
    const dbFrom =
      opts.db === undefined
        ? env.SEMAFORO_HOME
          ? 'SEMAFORO_HOME'
          : "the desktop app's data folder"
        : env.SEMAFORO_DB === opts.db
          ? 'SEMAFORO_DB'
          : '--db';
    const handlersDir = path.resolve(opts.handlers ?? defaultHandlersDir(env));
    const handlersFrom =
      opts.handlers === undefined
        ? 'the data folder'
        : env.SEMAFORO_HANDLERS === opts.handlers
          ? 'SEMAFORO_HANDLERS'
          : '--handlers';
    let size: number | null = null;
    try {
      size = fs.statSync(db).size;
    } catch {
      // no queue there yet
    }
    ctx.print(cmd, { db, dbFrom, exists: size !== null, handlersDir, handlersFrom }, () =>
      [
        `queue     ${db} (from ${dbFrom}; ${size === null ? 'does not exist yet' : `${size} bytes`})`,
        `handlers  ${handlersDir} (from ${handlersFrom}${fs.existsSync(handlersDir) ? '' : '; no such folder'})`,
      ].join('\n'),
    );
  });
}
