import { httpHandler } from './http.ts';
import type { Handler } from './registry.ts';
import { defineHandler } from './registry.ts';
import { shellHandler } from './shell.ts';
import { sleepHandler } from './sleep.ts';
import { sqliteBackupHandler } from './sqlite-backup.ts';

/** The kinds every engine knows, whatever face opens it. */
export function builtinHandlers(): Handler<unknown>[] {
  return [
    defineHandler(sleepHandler),
    defineHandler(shellHandler),
    defineHandler(httpHandler),
    defineHandler(sqliteBackupHandler),
  ];
}
