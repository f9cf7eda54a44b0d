import fs from 'node:fs';
import type { Command } from 'commander';
import { NotFoundError } from '../../shared/errors.ts';
import { builtinHandlers } from '../core/handlers/builtin.ts';
import type { Handler } from '../core/handlers/registry.ts';
import { defaultHandlersDir } from '../core/paths.ts';
import { distrust } from '../core/trust/file-trust.ts';
import type { CliContext } from './context.ts';

interface LoadedKinds {
  handlers: Handler<unknown>[];
  errors: { file: string; message: string }[];
  dir: string;
}

const BUILTIN_KINDS: ReadonlySet<string> = new Set(builtinHandlers().map((h) => h.kind));

/**
 * The user's own kinds from their handler folder (`--handlers`, `SEMAFORO_HANDLERS`, or
 * `<data folder>/handlers`). A module that fails to load is reported, never fatal.
 */
export async function loadKinds(ctx: CliContext, cmd: Command): Promise<LoadedKinds> {
  const dir = handlersDir(ctx, cmd);
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

/**
 * The user's kinds, imported only when `kinds` names one that is not built in: importing a
 * module runs its code, so a command that enqueues or schedules built-in kinds (a cron line's
 * `enqueue -- cmd`) never executes the user's modules; one that names their own kind does, to
 * check its payload against the module's schema before anything is written.
 */
export async function loadKindsFor(
  ctx: CliContext,
  cmd: Command,
  kinds: readonly unknown[],
): Promise<LoadedKinds> {
  if (kinds.every((k) => typeof k !== 'string' || BUILTIN_KINDS.has(k)))
    return { handlers: [], errors: [], dir: handlersDir(ctx, cmd) };
  return loadKinds(ctx, cmd);
}

/**
 * The kinds a worker here has, as far as they can be told without importing the user's
 * modules (`show` runs no task, so it executes none of them): all of them when there is no
 * handler folder; else undefined for a kind that is not built in (not judged).
 */
export function kindsKnownWithoutImport(ctx: CliContext, cmd: Command, kind: string): string[] | undefined {
  if (BUILTIN_KINDS.has(kind) || !fs.existsSync(handlersDir(ctx, cmd))) return [...BUILTIN_KINDS];
  return undefined;
}

/** The handler folder this command names, or the default one. */
export function handlersDir(ctx: CliContext, cmd: Command): string {
  const given = cmd.optsWithGlobals<{ handlers?: string }>().handlers;
  // The default folder may well not exist; one the user named must (a typo loads nothing).
  if (given !== undefined && !isFolder(given))
    throw new NotFoundError(`--handlers: ${given} is not a folder (of your task kind modules)`);
  return given ?? defaultHandlersDir(ctx.ioHandle.env);
}

function isFolder(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
