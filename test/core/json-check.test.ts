/** checkJson (shared/json.ts): what a payload may be, and the message naming where it is not. */
import { describe, expect, it } from 'vitest';
import { checkJson } from '../../shared/json.ts';

const limits = { maxDepth: 4, maxBytes: 64 };

describe('checkJson', () => {
  it('accepts plain JSON and returns its text; holes in arrays are written as null', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(checkJson({ a: [1, , 'x'], b: null, c: Object.create(null) }, limits)).toEqual({
      ok: true,
      text: '{"a":[1,null,"x"],"b":null,"c":{}}',
    });
  });

  class Point {
    x = 1;
  }
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;

  it('accepts an object used in two places (JSON repeats it), and bounds the work of hostile sharing', () => {
    const twice = { n: 1 };
    expect(checkJson({ a: twice, b: [twice] }, limits)).toEqual({
      ok: true,
      text: '{"a":{"n":1},"b":[{"n":1}]}',
    });
    // 2^40 paths through 40 shared levels: refused by its size without walking them.
    let wide: unknown = 0;
    for (let i = 0; i < 40; i++) wide = [wide, wide];
    expect(checkJson(wide, { maxDepth: 64, maxBytes: 1000 })).toEqual({
      ok: false,
      message: 'is more than 1000 bytes as JSON (the limit)',
    });
  });

  it('takes any depth within its limit without overflowing the stack, and names a cycle found deep down', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 3000; i++) deep = [deep];
    expect(checkJson(deep, { maxDepth: 5000, maxBytes: 100_000 })).toMatchObject({ ok: true });
    expect(checkJson(deep, { maxDepth: 32, maxBytes: 100_000 })).toEqual({
      ok: false,
      message: `is nested deeper than 32 levels at ${'[0]'.repeat(32)}`,
    });
    const loop: Record<string, unknown> = { a: { b: {} } };
    (loop.a as { b: Record<string, unknown> }).b.back = loop.a;
    expect(checkJson({ x: loop }, { maxDepth: 32, maxBytes: 1000 })).toEqual({
      ok: false,
      message: 'must be JSON: it contains a cycle at x.a.b.back',
    });
  });

  it.each([
    [{ a: { b: Number.NaN } }, 'must be JSON: NaN is not allowed at a.b'],
    [{ list: [1, undefined] }, 'must be JSON: a undefined is not allowed at list[1]'],
    [{ f: () => 1 }, 'must be JSON: a function is not allowed at f'],
    [{ p: new Point() }, 'must be JSON: a class instance is not allowed at p'],
    [cyclic, 'must be JSON: it contains a cycle at self'],
    [{ a: { b: { c: { d: {} } } } }, 'is nested deeper than 4 levels at a.b.c.d'],
    [{ s: 'x'.repeat(100) }, 'is 108 bytes as JSON; the limit is 64'],
  ])('refuses %j: %s', (value, message) => {
    expect(checkJson(value, limits)).toEqual({ ok: false, message });
  });
});
