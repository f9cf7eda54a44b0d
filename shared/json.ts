import type { JsonValue } from './domain.ts';

export interface JsonLimits {
  maxDepth: number;
  maxBytes: number;
}

/**
 * Checks that `value` is plain JSON (no undefined, functions, NaN/Infinity, class instances,
 * cycles), no deeper than `maxDepth` and no larger than `maxBytes` once serialised. An object
 * used in two places is fine (JSON repeats it); one inside itself is a cycle.
 * Returns the serialised text, or a message saying what is wrong and where.
 */
export function checkJson(
  value: unknown,
  limits: JsonLimits,
): { ok: true; text: string } | { ok: false; message: string } {
  // Every enqueue passes here: the common, valid case is checked by a walk that allocates
  // nothing, and only a refused value is walked again to say what and where the fault is.
  if (!isPlainJson(value, limits)) return { ok: false, message: faultOf(value, limits) ?? 'must be JSON' };
  const text = JSON.stringify(value);
  // A UTF-16 unit is at most 3 UTF-8 bytes: most texts need no counting.
  const bytes = text.length * 3 <= limits.maxBytes ? text.length : utf8Length(text);
  if (bytes > limits.maxBytes) {
    return { ok: false, message: `is ${bytes} bytes as JSON; the limit is ${limits.maxBytes}` };
  }
  return { ok: true, text };
}

const isPlainObject = (v: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** Deeper limits than this are checked by the iterative walk alone (see isPlainJson). */
const MAX_RECURSION = 1000;
/** What the fast check may still visit: a counter, so that it allocates nothing. */
let visitsLeft = 0;

/**
 * Whether `value` passes checkJson's rules, its size aside. Recursive, which is safe: the
 * recursion stops at maxDepth, so a cycle is refused here as too deep (faultOf then names it).
 * Visits at most maxBytes values (each adds at least a byte to the text), so hostile sharing
 * (2^40 paths through 40 shared levels) is refused at once instead of walked for ever.
 */
function isPlainJson(value: unknown, limits: JsonLimits): boolean {
  if (limits.maxDepth > MAX_RECURSION) return faultOf(value, limits) === null;
  visitsLeft = limits.maxBytes;
  return plainAt(value, 0, limits.maxDepth);
}

function plainAt(v: unknown, depth: number, maxDepth: number): boolean {
  if (--visitsLeft < 0) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v !== 'object' || depth >= maxDepth) return false;
  if (Array.isArray(v)) {
    // Holes are written as null.
    for (let i = 0; i < v.length; i++) if (i in v && !plainAt(v[i], depth + 1, maxDepth)) return false;
    return true;
  }
  if (!isPlainObject(v)) return false;
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    if (!plainAt((v as Record<string, unknown>)[keys[i]!], depth + 1, maxDepth)) return false;
  }
  return true;
}

/** Marks, on the walk's stack, the point where an object's children are all done. */
const LEFT = -1;

/**
 * The first fault of `value` against checkJson's rules, saying where, or null. Iterative, so
 * hostile depth cannot overflow the stack; it tells a cycle from mere depth by the objects open
 * on the way from the root. Visits at most maxBytes values, as isPlainJson does.
 */
function faultOf(value: unknown, limits: JsonLimits): string | null {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  const paths: string[] = [''];
  /** the objects on the way from the root to the current value: meeting one again is a cycle */
  const open = new Set<object>();
  let visits = 0;
  const at = (path: string) => (path ? ` at ${path}` : '');
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    const path = paths.pop()!;
    if (depth === LEFT) {
      open.delete(v as object);
      continue;
    }
    if (++visits > limits.maxBytes) return `is more than ${limits.maxBytes} bytes as JSON (the limit)`;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (Number.isFinite(v)) continue;
      return `must be JSON: ${v} is not allowed${at(path)}`;
    }
    if (typeof v !== 'object') return `must be JSON: a ${typeof v} is not allowed${at(path)}`;
    if (depth >= limits.maxDepth) return `is nested deeper than ${limits.maxDepth} levels${at(path)}`;
    if (open.has(v)) return `must be JSON: it contains a cycle${at(path)}`;
    if (!Array.isArray(v) && !isPlainObject(v))
      return `must be JSON: a class instance is not allowed${at(path)}`;
    open.add(v);
    values.push(v);
    depths.push(LEFT);
    paths.push(path);
    if (Array.isArray(v)) {
      // Last first, so the first fault found is the first in the text; holes are written as null.
      for (let i = v.length - 1; i >= 0; i--) {
        if (!(i in v)) continue;
        values.push(v[i]);
        depths.push(depth + 1);
        paths.push(`${path}[${i}]`);
      }
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      values.push((v as Record<string, unknown>)[k]);
      depths.push(depth + 1);
      paths.push(path ? `${path}.${k}` : k);
    }
  }
  return null;
}

/** UTF-8 byte length without allocating a buffer (works in the browser too). */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Parses JSON text that this program wrote itself (from the database). */
export function parseStoredJson(text: string | null): JsonValue | null {
  if (text === null) return null;
  return JSON.parse(text) as JsonValue;
}
