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
    const given = ctx.dbPath(cmd);
    const server = /^[a-z][a-z0-9+.-]*:\/\//i.test(given);
    const db = server ? withoutPassword(given) : path.resolve(given);
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
      if (!server) size = fs.statSync(db).size;
    } catch {
      // no queue there yet
    }
    // A server is not contacted (`where` opens nothing): whether the queue exists there is unknown.
    const exists = server ? null : size !== null;
    const state = server ? 'a server, not contacted' : size === null ? 'does not exist yet' : `${size} bytes`;
    ctx.print(cmd, { db, dbFrom, exists, handlersDir, handlersFrom }, () =>
      [
        `queue     ${db} (from ${dbFrom}; ${state})`,
        `handlers  ${handlersDir} (from ${handlersFrom}${fs.existsSync(handlersDir) ? '' : '; no such folder'})`,
      ].join('\n'),
    );
  });
}

/** A queue URL as shown to people: never its password. */
function withoutPassword(location: string): string {
  try {
    const u = new URL(location);
    u.password = '';
    return u.toString();
  } catch {
    return location.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1@');
  }
}
