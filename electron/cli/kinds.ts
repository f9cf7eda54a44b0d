import type { Command } from 'commander';
import type { Handler } from '../core/handlers/registry.ts';
import { loadUserHandlers } from '../core/handlers/user-modules.ts';
import { defaultHandlersDir } from '../core/paths.ts';
import type { CliContext } from './context.ts';

/**
 * The user's own kinds from their handler folder (`--handlers`, `SEMAFORO_HANDLERS`, or
 * `<data folder>/handlers`). A module that fails to load is reported, never fatal.
 */
export async function loadKinds(
  ctx: CliContext,
  cmd: Command,
): Promise<{ handlers: Handler<unknown>[]; errors: { file: string; message: string }[]; dir: string }> {
  const dir = cmd.optsWithGlobals<{ handlers?: string }>().handlers ?? defaultHandlersDir(ctx.ioHandle.env);
  const { handlers, errors } = await loadUserHandlers(dir);
  return { handlers, errors, dir };
}
