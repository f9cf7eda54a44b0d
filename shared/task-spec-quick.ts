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
import type { JsonValue } from './domain.ts';
import { LIMITS, NAME_RE, parseInput, taskSpecSchema, wellFormed, type ParsedTaskSpec } from './schemas.ts';

/** Parses a task spec, or throws the schema's ValidationError (paths under `prefix`). */
export function parseTaskSpec(input: unknown, prefix = ''): ParsedTaskSpec {
  return quickTaskSpec(input) ?? parseInput(taskSpecSchema, input, prefix);
}

/** The schema's output for a spec in the common shape, or undefined: ask the schema. */
export function quickTaskSpec(input: unknown): ParsedTaskSpec | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const proto: unknown = Object.getPrototypeOf(input);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const spec = input as Record<string, unknown>;
  const out: ParsedTaskSpec = { kind: '', payload: {} };
  let hasKind = false;
  let payload: unknown = {};
  for (const key of Object.keys(spec)) {
    const v = spec[key];
    switch (key) {
      case 'kind':
        if (!isName(v)) return undefined;
        out.kind = v;
        hasKind = true;
        break;
      case 'name':
        if (!isText(v, LIMITS.nameLength)) return undefined;
        out.name = v;
        break;
      case 'group':
        if (!isName(v)) return undefined;
        out.group = v;
        break;
      case 'priority':
        if (!isIntIn(v, LIMITS.priority.min, LIMITS.priority.max)) return undefined;
        out.priority = v;
        break;
      case 'maxAttempts':
        if (!isIntIn(v, LIMITS.maxAttempts.min, LIMITS.maxAttempts.max)) return undefined;
        out.maxAttempts = v;
        break;
      case 'timeout':
        if (v !== null && !isIntIn(v, LIMITS.timeoutMs.min, LIMITS.timeoutMs.max)) return undefined;
        out.timeout = v;
        break;
      case 'runAt':
        // Epoch milliseconds only: an ISO text is the schema's to parse.
        if (!isIntIn(v, 0, Number.MAX_SAFE_INTEGER)) return undefined;
        out.runAt = v;
        break;
      case 'delay':
        if (!isIntIn(v, 0, LIMITS.delayMs.max)) return undefined;
        out.delay = v;
        break;
      case 'unique':
        if (!isText(v, LIMITS.uniqueLength)) return undefined;
        out.unique = v;
        break;
      case 'payload':
        if (v === undefined || !checkJson(v, LIMITS.payload).ok) return undefined;
        payload = v;
        break;
      default:
        return undefined;
    }
  }
  if (!hasKind || (out.runAt !== undefined && out.delay !== undefined)) return undefined;
  out.payload = payload as JsonValue;
  return out;
}

const isName = (v: unknown): v is string => typeof v === 'string' && NAME_RE.test(v);
const isText = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.length >= 1 && v.length <= max && wellFormed(v);
const isIntIn = (v: unknown, min: number, max: number): v is number =>
  Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;
