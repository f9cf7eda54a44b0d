/**
 * User kinds: every `.js`, `.mjs`, `.cjs` or `.ts` module in the user's handler folder that exports a
 * handler object. A broken module is reported, not fatal: one typo must not stop the tray app or
 * the worker from running every other kind.
 *
 * A module default-exports (or exports as `handler`):
 *   { kind, description, payload?, defaultTimeoutMs?, run(payload, ctx) }
 * `payload` is a zod schema (any object with `safeParse`); without one any JSON object is accepted.
 * `run` may throw an error with `permanent: true` (do not retry) or `retryAfterMs: n` (wait n ms),
 * since a module in the user's folder cannot import Semaforo's error classes. `ctx.signal` is a
 * getter that makes the signal on first read: `{ ...ctx }` would not copy it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { JsonValue } from '../../../shared/domain.ts';
import { kindSchema, parseInput, timeoutMsSchema } from '../../../shared/schemas.ts';
import { PermanentError, RetryAfterError } from '../errors.ts';
import { distrust } from '../trust/file-trust.ts';
import { builtinHandlers } from './builtin.ts';
import { describeSyntaxError } from './syntax-error.ts';
import type { Handler, HandlerContext } from './registry.ts';

export interface UserHandlerError {
  /** the module's full path (or the folder's, when it cannot be read) */
  file: string;
  message: string;
}

export interface LoadedUserHandlers {
  handlers: Handler[];
  errors: UserHandlerError[];
}

export interface LoadOptions {
  /** kinds a module may not take (default: the built-in ones) */
  reservedKinds?: readonly string[];
  /** how long one module may take to load (a top-level await that never ends) */
  timeoutMs?: number;
}

const EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.ts']);

interface SchemaLike {
  safeParse: (value: unknown) => {
    success: boolean;
    data?: unknown;
    error?: { issues?: { message?: unknown; path?: unknown }[] };
  };
}

const isSchemaLike = (v: unknown): v is SchemaLike =>
  typeof v === 'object' && v !== null && typeof (v as { safeParse?: unknown }).safeParse === 'function';

type UserRun = (payload: unknown, ctx: HandlerContext) => unknown;

const exportSchema = z.object({
  kind: kindSchema,
  description: z
    .string({ error: 'must be a string (one line for --help and the UI)' })
    .min(1, { error: 'must not be empty' })
    .max(500, { error: 'must be at most 500 characters' }),
  payload: z
    .custom<SchemaLike>(isSchemaLike, { error: 'must be a zod schema (an object with safeParse) or absent' })
    .optional(),
  defaultTimeoutMs: timeoutMsSchema.optional(),
  run: z.custom<UserRun>((v) => typeof v === 'function', {
    error: 'must be a function (payload, ctx) => result',
  }),
});

const anyObject = z.record(z.string(), z.unknown(), { error: 'must be a JSON object' });

/**
 * Adapts the module's schema to this process's zod, so a module may bring its own zod copy (or
 * version): issues keep their messages and paths, so errors still name the field.
 */
function adoptSchema(schema: SchemaLike): z.ZodType<unknown> {
  return z.unknown().transform((value, ctx) => {
    let r: ReturnType<SchemaLike['safeParse']>;
    try {
      r = schema.safeParse(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `the kind's schema threw: ${String(err)}` });
      return z.NEVER;
    }
    if (r.success) return r.data;
    const issues = r.error?.issues?.length ? r.error.issues : [{ message: 'is not valid' }];
    for (const issue of issues) {
      const keys = Array.isArray(issue.path) ? issue.path : [];
      ctx.addIssue({
        code: 'custom',
        message: typeof issue.message === 'string' ? issue.message : 'is not valid',
        path: keys.filter((k): k is string | number => typeof k === 'string' || typeof k === 'number'),
      });
    }
    return z.NEVER;
  });
}

/** Maps the duck-typed errors a module can throw onto the ones the dispatcher understands. */
function adoptError(err: unknown): unknown {
  if (err instanceof PermanentError || err instanceof RetryAfterError) return err;
  if (typeof err !== 'object' || err === null) return err;
  const e = err as { message?: unknown; permanent?: unknown; retryAfterMs?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  if (typeof e.retryAfterMs === 'number' && Number.isFinite(e.retryAfterMs) && e.retryAfterMs >= 0)
    return new RetryAfterError(e.retryAfterMs, message);
  if (e.permanent === true) return new PermanentError(message);
  return err;
}

/** The handler object a module exports: its default export, or its `handler` export. */
function exported(mod: Record<string, unknown>): unknown {
  const def = mod.default as { handler?: unknown; kind?: unknown } | undefined;
  // A CommonJS `module.exports = { handler }` arrives as default.handler.
  const candidates = [def, mod.handler, def?.handler].filter((c) => c !== undefined);
  return candidates.find((c) => typeof c === 'object' && c !== null && 'kind' in c) ?? candidates[0];
}

function toHandler(value: unknown): Handler {
  if (value === undefined)
    throw new Error('exports no handler: default-export (or export as `handler`) { kind, description, run }');
  const h = parseInput(exportSchema, value, 'export');
  const run = h.run;
  return {
    kind: h.kind,
    description: h.description,
    payload: h.payload ? adoptSchema(h.payload) : anyObject,
    defaultTimeoutMs: h.defaultTimeoutMs,
    run: async (payload, ctx) => {
      try {
        return (await run(payload, ctx)) as JsonValue | void;
      } catch (err) {
        throw adoptError(err);
      }
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish loading within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/** Loads every handler module in `dir` (in name order). A missing folder is simply empty. */
export async function loadUserHandlers(dir: string, options: LoadOptions = {}): Promise<LoadedUserHandlers> {
  const handlers: Handler[] = [];
  const errors: UserHandlerError[] = [];
  // A module runs as this user: none is imported from a folder another user could write.
  const folderDistrust = distrust(dir, 'handler folder');
  if (folderDistrust !== null) return { handlers, errors: [{ file: dir, message: folderDistrust }] };
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { handlers, errors };
    return { handlers, errors: [{ file: dir, message: `cannot read the handler folder: ${describe(err)}` }] };
  }
  const files = entries
    .filter(
      (e) =>
        (e.isFile() || e.isSymbolicLink()) &&
        !e.name.startsWith('.') &&
        !e.name.endsWith('.d.ts') &&
        EXTENSIONS.has(path.extname(e.name)),
    )
    .map((e) => e.name)
    .sort();
  const owners = new Map<string, string>();
  for (const kind of options.reservedKinds ?? builtinHandlers().map((h) => h.kind))
    owners.set(kind, 'built-in');
  for (const name of files) {
    const file = path.join(dir, name);
    const why = distrust(file, 'handler module');
    if (why !== null) {
      errors.push({ file, message: why });
      continue;
    }
    try {
      const mod = await withTimeout<Record<string, unknown>>(
        import(pathToFileURL(file).href),
        options.timeoutMs ?? 10_000,
        name,
      );
      const handler = toHandler(exported(mod));
      const owner = owners.get(handler.kind);
      if (owner) throw new Error(`kind "${handler.kind}" is already defined (${owner}); pick another name`);
      owners.set(handler.kind, name);
      handlers.push(handler);
    } catch (err) {
      errors.push({ file, message: describeSyntaxError(err, file) ?? describe(err) });
    }
  }
  return { handlers, errors };
}
