import type { JsonValue } from './domain.ts';

export interface JsonLimits {
  maxDepth: number;
  maxBytes: number;
}

/**
 * Checks that `value` is plain JSON (no undefined, functions, NaN/Infinity, class instances,
 * cycles), no deeper than `maxDepth` and no larger than `maxBytes` once serialised.
 * Walks iteratively so hostile depth cannot overflow the stack.
 * Returns the serialised text, or a message saying what is wrong and where.
 */
export function checkJson(
  value: unknown,
  limits: JsonLimits,
): { ok: true; text: string } | { ok: false; message: string } {
  // Every enqueue passes here: the common, valid case is walked without building paths, and
  // only a refused value is walked again to say where the fault is.
  if (!isPlainJson(value, limits.maxDepth)) return { ok: false, message: jsonFault(value, limits.maxDepth) };
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

/** checkJson's rules, as a yes or no. */
function isPlainJson(value: unknown, maxDepth: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  const seen = new Set<object>();
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return false;
      continue;
    }
    if (typeof v !== 'object' || depth >= maxDepth || seen.has(v)) return false;
    seen.add(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (!(i in v)) continue; // a hole, written as null (as forEach skips it below)
        values.push(v[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    if (!isPlainObject(v)) return false;
    for (const k of Object.keys(v)) {
      values.push((v as Record<string, unknown>)[k]);
      depths.push(depth + 1);
    }
  }
  return true;
}

/** What breaks checkJson's rules in `value`, and where. */
function jsonFault(value: unknown, maxDepth: number): string {
  const stack: { v: unknown; depth: number; path: string }[] = [{ v: value, depth: 0, path: '' }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    const where = path ? ` at ${path}` : '';
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `must be JSON: ${v} is not allowed${where}`;
      continue;
    }
    if (typeof v !== 'object') return `must be JSON: a ${typeof v} is not allowed${where}`;
    if (depth >= maxDepth) return `is nested deeper than ${maxDepth} levels${where}`;
    if (seen.has(v)) return `must be JSON: it contains a cycle${where}`;
    seen.add(v);
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ v: item, depth: depth + 1, path: `${path}[${i}]` }));
      continue;
    }
    if (!isPlainObject(v)) return `must be JSON: a class instance is not allowed${where}`;
    for (const [k, item] of Object.entries(v)) {
      stack.push({ v: item, depth: depth + 1, path: path ? `${path}.${k}` : k });
    }
  }
  return 'must be JSON';
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
