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
  const stack: { v: unknown; depth: number; path: string }[] = [{ v: value, depth: 0, path: '' }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    const where = path ? ` at ${path}` : '';
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { ok: false, message: `must be JSON: ${v} is not allowed${where}` };
      continue;
    }
    if (typeof v !== 'object') {
      return { ok: false, message: `must be JSON: a ${typeof v} is not allowed${where}` };
    }
    if (depth >= limits.maxDepth) {
      return { ok: false, message: `is nested deeper than ${limits.maxDepth} levels${where}` };
    }
    if (seen.has(v)) return { ok: false, message: `must be JSON: it contains a cycle${where}` };
    seen.add(v);
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ v: item, depth: depth + 1, path: `${path}[${i}]` }));
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) {
      return { ok: false, message: `must be JSON: a class instance is not allowed${where}` };
    }
    for (const [k, item] of Object.entries(v)) {
      stack.push({ v: item, depth: depth + 1, path: path ? `${path}.${k}` : k });
    }
  }
  const text = JSON.stringify(value);
  const bytes = utf8Length(text);
  if (bytes > limits.maxBytes) {
    return { ok: false, message: `is ${bytes} bytes as JSON; the limit is ${limits.maxBytes}` };
  }
  return { ok: true, text };
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
