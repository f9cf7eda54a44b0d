/**
 * The shell kind's payload in its common shape (a command, its arguments, a folder), checked by
 * plain code so a cron line's `enqueue` or `run` need not load the schema (payload.ts). It
 * answers only "valid, and here is what `shellPayload` (payload-schemas.ts) would give", never
 * "invalid": anything unusual goes to the schema. test/core/shell-payload-quick.test.ts holds
 * the two together.
 */
import type { ShellPayload } from './payload-schemas.ts';

const isText = (v: unknown): v is string => typeof v === 'string' && !v.includes('\0');
const FIELDS = new Set(['command', 'args', 'cwd', 'env', 'shell']);

export function quickShellPayload(input: unknown): ShellPayload | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const proto: unknown = Object.getPrototypeOf(input);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const p = input as Record<string, unknown>;
  // Own listed keys only, each a field of the schema with a value: the rest is the schema's.
  const keys = Object.keys(p);
  for (const k of keys) if (!FIELDS.has(k) || p[k] === undefined) return undefined;
  for (const k of FIELDS) if (k in p && !Object.hasOwn(p, k)) return undefined;
  const { command, args, cwd, env, shell } = p;
  if (!isText(command) || command.length === 0 || command.length > 4096) return undefined;
  // The schema's output lists its fields in its own order, whatever the input's order.
  const out: ShellPayload = { command };
  if (args !== undefined) {
    if (!Array.isArray(args) || args.length > 10_000 || Object.getPrototypeOf(args) !== Array.prototype)
      return undefined;
    for (let i = 0; i < args.length; i++) if (!(i in args) || !isText(args[i])) return undefined;
    out.args = [...(args as string[])];
  }
  if (cwd !== undefined) {
    if (!isText(cwd)) return undefined;
    out.cwd = cwd;
  }
  if (env !== undefined) return undefined; // rare on this path; the schema checks names and values
  if (shell !== undefined) {
    if (typeof shell !== 'boolean') return undefined;
    out.shell = shell;
  }
  return out;
}
