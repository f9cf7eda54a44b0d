/**
 * The task spec of every enqueue, parsed. Most specs are a plain object with a few well-formed
 * fields; those are checked here by plain code, which costs a tenth of the schema's parse in a
 * fresh process (zod's generic parse needs thousands of calls to warm up, and a CLI or a script
 * enqueues a few). Anything else, and every spec with a fault, goes to `taskSpecSchema`, which
 * stays the one definition of the rules and of the error messages: this answers only "valid,
 * and here is what the schema would give", never "invalid". A property test holds the two
 * together (test/core/task-spec-quick.test.ts).
 */
import { checkJson } from './json.ts';
import { LIMITS, NAME_RE, wellFormed } from './limits.ts';
import type { ParsedTaskSpec } from './schemas.ts';

/**
 * Parses a task spec, or rejects with the schema's ValidationError (paths under `prefix`). The
 * schema module (and zod) is loaded only for a spec this code passes on: a cron line's
 * `enqueue` or `run` never loads it (test/bench, scenario startup).
 */
export async function parseTaskSpec(input: unknown, prefix = ''): Promise<ParsedTaskSpec> {
  const quick = quickTaskSpec(input);
  if (quick) return quick;
  const { parseInput, taskSpecSchema } = await import('./schemas.ts');
  return parseInput(taskSpecSchema, input, prefix);
}

/** Parses specs in order, so the first bad one is the one reported; `tasks[i]` paths. */
export async function parseTaskSpecs(inputs: readonly unknown[]): Promise<ParsedTaskSpec[]> {
  const out: ParsedTaskSpec[] = [];
  for (const [i, input] of inputs.entries())
    out.push(quickTaskSpec(input) ?? (await parseTaskSpec(input, `tasks[${i}]`)));
  return out;
}

const isName = (v: unknown): v is string => typeof v === 'string' && NAME_RE.test(v);
const isText = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.length >= 1 && v.length <= max && wellFormed(v);
const isIntIn = (v: unknown, min: number, max: number): boolean =>
  Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;

/**
 * The schema's fields in its order, each with the common case of its rule. `timeout` and `delay`
 * (duration text) are the schema's to parse; their `...Ms` spellings are read here.
 */
const FIELDS: readonly (readonly [string, (v: unknown) => boolean])[] = [
  ['kind', isName],
  ['name', (v) => isText(v, LIMITS.nameLength)],
  ['group', isName],
  ['priority', (v) => isIntIn(v, LIMITS.priority.min, LIMITS.priority.max)],
  ['maxAttempts', (v) => isIntIn(v, LIMITS.maxAttempts.min, LIMITS.maxAttempts.max)],
  ['timeoutMs', (v) => v === null || isIntIn(v, LIMITS.timeoutMs.min, LIMITS.timeoutMs.max)],
  // Epoch milliseconds only: an ISO text is the schema's to parse.
  ['runAt', (v) => isIntIn(v, 0, Number.MAX_SAFE_INTEGER)],
  ['delayMs', (v) => isIntIn(v, 0, LIMITS.delayMs.max)],
  ['unique', (v) => isText(v, LIMITS.uniqueLength)],
  ['payload', (v) => checkJson(v, LIMITS.payload).ok],
];

/** The schema's output for a spec in the common shape, or undefined: ask the schema. */
export function quickTaskSpec(input: unknown): ParsedTaskSpec | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const proto: unknown = Object.getPrototypeOf(input);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const spec = input as Record<string, unknown>;
  // Each field is read as the schema reads it (`in`, then the value: inherited, hidden and
  // proxied ones included), and the spec's own listed keys must be exactly those fields, so
  // an unknown key, or a field the listing does not show, is left to the schema.
  const out: Record<string, unknown> = {};
  let present = 0;
  for (const [key, valid] of FIELDS) {
    if (!(key in spec)) continue;
    const v = spec[key];
    if (v === undefined || !valid(v)) return undefined;
    out[key.endsWith('Ms') ? key.slice(0, -2) : key] = v;
    present++;
  }
  if (Object.keys(spec).length !== present || out.kind === undefined) return undefined;
  if (out.runAt !== undefined && out.delay !== undefined) return undefined;
  if (!('payload' in out)) out.payload = {}; // not ??=: a null payload stays null
  return out as ParsedTaskSpec;
}
