import type { JsonValue } from './domain.ts';

export interface JsonLimits {
  maxDepth: number;
  maxBytes: number;
}

/**
 * Checks that `value` is plain JSON (no undefined, functions, NaN/Infinity, class instances,
 * cycles), no deeper than `maxDepth` and no larger than `maxBytes` once serialised. An object
 * used in two places is fine (JSON repeats it); one inside itself is a cycle.
 * Walks iteratively so hostile depth cannot overflow the stack, and visits at most `maxBytes`
 * values (each adds at least a byte to the text), so hostile sharing cannot make it run for ever.
 * Returns the serialised text, or a message saying what is wrong and where.
 */
export function checkJson(
  value: unknown,
  limits: JsonLimits,
): { ok: true; text: string } | { ok: false; message: string } {
  // Every enqueue passes here: the common, valid case is walked without building paths, and
  // only a refused value is walked again to say where the fault is.
  if (jsonWalk(value, limits, false) !== null) {
    return { ok: false, message: jsonWalk(value, limits, true) ?? 'must be JSON' };
  }
  const text = JSON.stringify(value);
  const bytes = utf8Length(text);
  if (bytes > limits.maxBytes) {
    return { ok: false, message: `is ${bytes} bytes as JSON; the limit is ${limits.maxBytes}` };
  }
  return { ok: true, text };
}

const isPlainObject = (v: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** Marks, on the walk's stack, the point where an object's children are all done. */
const LEFT = -1;

/**
 * The first fault of `value` against checkJson's rules, or null. Without `where` it only tells
 * that there is one ('' as the message): no path strings are built on the common path.
 */
function jsonWalk(value: unknown, limits: JsonLimits, where: boolean): string | null {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  const paths: string[] = [''];
  /** the objects on the way from the root to the current value: meeting one again is a cycle */
  const open = new Set<object>();
  let visits = 0;
  const at = (path: string) => (where && path ? ` at ${path}` : '');
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    const path = where ? paths.pop()! : '';
    if (depth === LEFT) {
      open.delete(v as object);
      continue;
    }
    if (++visits > limits.maxBytes) {
      return where ? `is more than ${limits.maxBytes} bytes as JSON (the limit)` : '';
    }
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (Number.isFinite(v)) continue;
      return where ? `must be JSON: ${v} is not allowed${at(path)}` : '';
    }
    if (typeof v !== 'object') return where ? `must be JSON: a ${typeof v} is not allowed${at(path)}` : '';
    if (depth >= limits.maxDepth)
      return where ? `is nested deeper than ${limits.maxDepth} levels${at(path)}` : '';
    if (open.has(v)) return where ? `must be JSON: it contains a cycle${at(path)}` : '';
    if (!Array.isArray(v) && !isPlainObject(v)) {
      return where ? `must be JSON: a class instance is not allowed${at(path)}` : '';
    }
    open.add(v);
    values.push(v);
    depths.push(LEFT);
    if (where) paths.push(path);
    if (Array.isArray(v)) {
      // Last first, so the first fault found is the first in the text; holes are written as null.
      for (let i = v.length - 1; i >= 0; i--) {
        if (!(i in v)) continue;
        values.push(v[i]);
        depths.push(depth + 1);
        if (where) paths.push(`${path}[${i}]`);
      }
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      values.push((v as Record<string, unknown>)[k]);
      depths.push(depth + 1);
      if (where) paths.push(path ? `${path}.${k}` : k);
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
