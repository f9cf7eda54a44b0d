/**
 * The quick task-spec check (shared/task-spec-quick.ts) against the schema it stands in for:
 * whatever it takes, the schema takes too and parses to the same value; what it passes on still
 * gets the schema's errors.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LIMITS, taskSpecSchema } from '../../shared/schemas.ts';
import { parseTaskSpecNow } from '../../shared/task-spec-now.ts';
import { quickTaskSpec } from '../../shared/task-spec-quick.ts';
import { ValidationError } from '../../shared/errors.ts';

/** Mostly valid values, with the edges of each field's limits, wrong ones and other types. */
const mostly = <T>(valid: fc.Arbitrary<T>, wrong: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 8, arbitrary: valid }, { weight: 1, arbitrary: wrong });
const other = fc.constantFrom<unknown>(undefined, null, true, 1, 'x', [], {}, [1]);
const int = (min: number, max: number) =>
  mostly(
    fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max)),
    fc.oneof(
      fc.constantFrom(min - 1, max + 1, -0, 0.5, NaN, Infinity, 2 ** 53, -(2 ** 53)),
      fc.double(),
      other,
    ),
  );
const text = (max: number) =>
  mostly(
    fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom('x'.repeat(max), '\u{1F600}', 'ünï')),
    fc.constantFrom<unknown>('', 'x'.repeat(max + 1), 'a\ud800b', 7, null),
  );
const name = mostly(
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,10}$/),
  fc.constantFrom<unknown>('', '-x', 'a b', 'x'.repeat(65), 'a\n', 3, null),
);
const payload = mostly(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<unknown>(undefined, { f: () => 1 }, { n: NaN }, new Date(0), [undefined]),
);

const specs = fc
  .tuple(
    fc.record(
      {
        kind: name,
        name: text(LIMITS.nameLength),
        group: name,
        priority: int(LIMITS.priority.min, LIMITS.priority.max),
        maxAttempts: int(LIMITS.maxAttempts.min, LIMITS.maxAttempts.max),
        timeoutMs: fc.oneof(fc.constant(null), int(LIMITS.timeoutMs.min, LIMITS.timeoutMs.max)),
        runAt: fc.oneof(int(0, Number.MAX_SAFE_INTEGER), fc.constant('2026-12-02T03:47:00Z')),
        delayMs: int(0, LIMITS.delayMs.max),
        unique: text(LIMITS.uniqueLength),
        payload,
      },
      { requiredKeys: ['kind'] },
    ),
    fc.integer({ min: 0, max: 19 }),
  )
  // Now and then: a key the schema does not know, no object at all, no kind, a field the key
  // listing does not show (the schema still reads it), or a Proxy.
  .map(([spec, dice]): unknown => {
    if (dice === 0) return { ...spec, colour: 'red' };
    if (dice === 1) return [spec];
    if (dice === 2) return { ...spec, kind: undefined };
    if (dice === 3) return Object.defineProperty({ ...spec }, 'priority', { value: 99, enumerable: false });
    if (dice === 4) return new Proxy(spec, {});
    return spec;
  });

describe('quickTaskSpec', () => {
  it('takes only what the schema takes, and gives what the schema gives', () => {
    let taken = 0;
    fc.assert(
      fc.property(specs, (spec) => {
        const quick = quickTaskSpec(spec);
        const schema = taskSpecSchema.safeParse(spec);
        if (quick === undefined) return;
        taken++;
        expect(schema.success).toBe(true);
        expect(quick).toStrictEqual(schema.data);
        expect(Object.keys(quick)).toEqual(Object.keys(schema.data!));
      }),
      { numRuns: 5000 },
    );
    // Not a check that never fires: a good share of the generated specs take the quick path.
    expect(taken).toBeGreaterThan(250);
  });

  it('takes the common shapes: what the CLI, the dashboard and scripts send', () => {
    for (const spec of [
      { kind: 'sleep', payload: { ms: 0 } },
      { kind: 'shell', name: 'nightly backup', group: 'backups', priority: 9, payload: { command: 'true' } },
      {
        kind: 'http',
        maxAttempts: 5,
        timeoutMs: null,
        delayMs: 1000,
        unique: 'report:2026-12-04',
        payload: {},
      },
      { kind: 'sleep', runAt: 1_780_000_000_000 },
    ]) {
      expect(quickTaskSpec(spec)).toStrictEqual(taskSpecSchema.parse(spec));
    }
  });

  it('reads fields as the schema does: one the key listing hides is not skipped', () => {
    const hidden = Object.defineProperty({ kind: 'sleep' }, 'priority', { value: 99, enumerable: false });
    expect(quickTaskSpec(hidden)).toBeUndefined();
    expect(taskSpecSchema.safeParse(hidden).success).toBe(false);
    const hiddenDelay = Object.defineProperty({ kind: 'sleep', runAt: 5 }, 'delayMs', { value: 10 });
    expect(quickTaskSpec(hiddenDelay)).toBeUndefined();
    const proxied = new Proxy({ kind: 'sleep', group: 'ok' } as Record<string, unknown>, {
      get: (t, k) => (k === 'group' ? 'bad name!' : t[k as string]),
    });
    expect(quickTaskSpec(proxied)).toBeUndefined();
    expect(taskSpecSchema.safeParse(proxied).success).toBe(false);
    // A polluted Object.prototype is seen by the schema, so the quick path steps aside.
    const proto = Object.prototype as Record<string, unknown>;
    proto.priority = 99;
    try {
      expect(quickTaskSpec({ kind: 'sleep' })).toBeUndefined();
    } finally {
      delete proto.priority;
    }
    expect(quickTaskSpec({ kind: 'sleep' })).toStrictEqual({ kind: 'sleep', payload: {} });
  });

  it('takes a duration as text, or as milliseconds in a field named ...Ms, never as a bare number', () => {
    expect(parseTaskSpecNow({ kind: 'sleep', timeout: '30s', delay: '5m' })).toStrictEqual({
      kind: 'sleep',
      timeout: 30_000,
      delay: 300_000,
      payload: {},
    });
    expect(parseTaskSpecNow({ kind: 'sleep', timeoutMs: 600, delayMs: 10 })).toMatchObject({
      timeout: 600,
      delay: 10,
    });
    const fault = (spec: unknown) => {
      const r = taskSpecSchema.safeParse(spec);
      expect(r.success).toBe(false);
      return r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    expect(fault({ kind: 'sleep', timeout: 600 })).toBe(
      'timeout: use a duration like "30s" or a number of milliseconds in timeoutMs',
    );
    expect(fault({ kind: 'sleep', delay: '10' })).toBe('delay: "10" has no unit; write 10s, 10m or 10ms');
    expect(fault({ kind: 'sleep', timeout: '8d' })).toBe('timeout: must be from 1ms to 7d');
    expect(fault({ kind: 'sleep', timeout: '1s', timeoutMs: 1000 })).toBe(
      'timeoutMs: give either timeout or timeoutMs, not both',
    );
  });

  it('passes the rest to the schema, which still names the field at fault', () => {
    // No payload is an empty one, on both paths (the schema used to refuse a missing key).
    expect(taskSpecSchema.parse({ kind: 'sleep' }).payload).toEqual({});
    expect(quickTaskSpec({ kind: 'sleep' })?.payload).toEqual({});
    // An ISO time is valid but the schema's to parse.
    expect(quickTaskSpec({ kind: 'sleep', runAt: '2026-12-02T03:47:00Z' })).toBeUndefined();
    expect(parseTaskSpecNow({ kind: 'sleep', runAt: '2026-12-02T03:47:00Z' }).runAt).toBe(
      Date.parse('2026-12-02T03:47:00Z'),
    );
    const fault = (spec: unknown) => {
      try {
        parseTaskSpecNow(spec, 'tasks[2]');
      } catch (err) {
        expect(err).toBeInstanceOf(ValidationError);
        return (err as ValidationError).message;
      }
      throw new Error('accepted');
    };
    expect(fault({ kind: 'sleep', priority: 10 })).toMatch(
      /tasks\[2\]\.priority: must be an integer from 0 to 9/,
    );
    expect(fault({ kind: 'sleep', runAt: 1, delayMs: 2 })).toMatch(
      /tasks\[2\]\.delay: give either runAt or delay/,
    );
    expect(fault({ kind: 'sleep', colour: 'red' })).toMatch(/colour/);
    expect(fault({ kind: 'sleep', payload: { n: NaN } })).toMatch(/tasks\[2\]\.payload/);
    expect(fault(null)).toMatch(/tasks\[2\]/);
  });
});
