/**
 * A queue file in a folder that does not exist: a command that only reads (`list`, `show`,
 * `stats`) says so instead of creating the folders and an empty queue (a typo in --db looked
 * like an empty queue); a command that writes creates them, and says where.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { NotFoundError } from '../../shared/errors.ts';

/** Commands (by their path under `semaforo`) that read the queue and never write it. */
const READERS = new Set([
  'list',
  'show',
  'stats',
  'workers',
  'kinds',
  'where',
  'group list',
  'schedule list',
  'schedule show',
]);

/** Whether the command only reads the queue (it must not create one). */
export function isReader(cmd: Command): boolean {
  return READERS.has(commandPath(cmd));
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Throws for a reader when the folder is missing; returns a note to print for a writer. */
export function checkDbFolder(cmd: Command, file: string): string | null {
  // A server's queue (postgres://...) has no folder; the server says whether it is there.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file)) return null;
  const dir = path.dirname(path.resolve(file));
  if (fs.existsSync(dir)) return null;
  if (isReader(cmd))
    throw new NotFoundError(`no queue at ${file}: the folder ${dir} does not exist (check --db)`);
  return `semaforo: creating the folder ${dir} for a new queue\n`;
}
