import fs from 'node:fs';
import type { Command } from 'commander';
import { NotFoundError } from '../../shared/errors.ts';
import type { Handler } from '../core/handlers/registry.ts';
import { defaultHandlersDir } from '../core/paths.ts';
import { distrust } from '../core/trust/file-trust.ts';
import type { CliContext } from './context.ts';

/**
 * The user's own kinds from their handler folder (`--handlers`, `SEMAFORO_HANDLERS`, or
 * `<data folder>/handlers`). A module that fails to load is reported, never fatal.
 */
export async function loadKinds(
  ctx: CliContext,
  cmd: Command,
): Promise<{ handlers: Handler<unknown>[]; errors: { file: string; message: string }[]; dir: string }> {
  const given = cmd.optsWithGlobals<{ handlers?: string }>().handlers;
  const dir = given ?? defaultHandlersDir(ctx.ioHandle.env);
  // The default folder may well not exist; one the user named must (a typo loads nothing).
  if (given !== undefined && !isFolder(given))
    throw new NotFoundError(`--handlers: ${given} is not a folder (of your task kind modules)`);
  // Usually there is no such folder: say so without loading the module loader, which brings
  // the schema library (a cron line's start, test/bench scenario startup). Its trust check of
  // the parent folder still runs, as the loader's would.
  if (!fs.existsSync(dir)) {
    const why = distrust(dir, 'handler folder');
    return { handlers: [], errors: why === null ? [] : [{ file: dir, message: why }], dir };
  }
  const { loadUserHandlers } = await import('../core/handlers/user-modules.ts');
  const { handlers, errors } = await loadUserHandlers(dir);
  return { handlers, errors, dir };
}

function isFolder(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
