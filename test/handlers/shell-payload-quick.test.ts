/**
 * The shell kind's quick payload check (electron/core/handlers/shell-payload-quick.ts) against
 * the schema it stands in for: whatever it takes, the schema takes too and parses to the same
 * value, fields in the same order; what it passes on still gets the schema's errors.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { shellPayload } from '../../electron/core/handlers/payload-schemas.ts';
import { readPayload } from '../../electron/core/handlers/payload.ts';
import { quickShellPayload } from '../../electron/core/handlers/shell-payload-quick.ts';
import { createShellHandler } from '../../electron/core/handlers/shell.ts';
import { ValidationError } from '../../shared/errors.ts';

const mostly = <T>(valid: fc.Arbitrary<T>, wrong: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: wrong });
const word = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a\0b', '\u{1F600}', ' '));
const text = mostly(word, fc.constantFrom<unknown>(null, 1, [], {}, true));

const payloads = fc
  .tuple(
    fc.record(
      {
        command: mostly(
          fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constant('x'.repeat(4096))),
          fc.constantFrom<unknown>('', 'x'.repeat(4097), 'a\0', 7, null),
        ),
        args: mostly(
          fc.array(text, { maxLength: 4 }),
          fc.constantFrom<unknown>('a', null, {}, [1], new Array<string>(2)),
        ),
        cwd: text,
        env: mostly(
          fc.dictionary(fc.constantFrom('A', 'PATH', 'B=', ''), text, { maxKeys: 2 }),
          fc.constantFrom<unknown>(null, [], 'x'),
        ),
        shell: mostly(fc.boolean(), fc.constantFrom<unknown>(0, 'true', null)),
      },
      { requiredKeys: [] },
    ),
    fc.integer({ min: 0, max: 15 }),
  )
  // Now and then: an unknown key, an explicit undefined, a hidden or inherited field, a Proxy.
  .map(([p, dice]): unknown => {
    if (dice === 0) return { ...p, colour: 'red' };
    if (dice === 1) return { ...p, cwd: undefined };
    if (dice === 2) return Object.defineProperty({ ...p }, 'shell', { value: 'no', enumerable: false });
    if (dice === 3) return Object.assign(Object.create({ cwd: 'inherited' }) as object, p);
    if (dice === 4) return new Proxy(p, {});
    if (dice === 5) return [p];
    return p;
  });

describe('quickShellPayload', () => {
  it('takes only what the schema takes, and gives what the schema gives', () => {
    let taken = 0;
    fc.assert(
      fc.property(payloads, (p) => {
        const quick = quickShellPayload(p);
        if (quick === undefined) return;
        taken++;
        const schema = shellPayload.safeParse(p);
        expect(schema.success).toBe(true);
        expect(quick).toStrictEqual(schema.data);
        expect(Object.keys(quick)).toEqual(Object.keys(schema.data!));
      }),
      { numRuns: 5000 },
    );
    // Not a check that never fires (half the payloads have an env, which the quick path leaves).
    expect(taken).toBeGreaterThan(100);
  });

  it("takes what the CLI sends: a command, its arguments, the caller's folder", () => {
    for (const p of [
      { command: 'true' },
      { command: 'backup.sh', args: ['--full', ''], cwd: '/home/u' },
      { cwd: '/tmp', shell: true, command: 'echo hi | wc -c' },
    ])
      expect(quickShellPayload(p)).toStrictEqual(shellPayload.parse(p));
  });

  it('leaves the rest to the schema, whose one-line errors name the field', async () => {
    const { payload } = createShellHandler();
    const refused = (p: unknown) =>
      Promise.resolve()
        .then(() => readPayload(payload, p, 'payload'))
        .then(
          () => '',
          (err: unknown) => (err instanceof ValidationError ? err.message : String(err)),
        );
    expect(quickShellPayload({ command: '' })).toBeUndefined();
    expect(await refused({ command: '' })).toBe('payload.command: must not be empty');
    expect(await refused({ command: 'x', args: [1] })).toMatch(/^payload\.args\[0\]: must be a string/);
    expect(await refused({ command: 'x', env: { 'A=': 'b' } })).toMatch(/^payload\.env/);
    expect(await refused({ command: 'x', colour: 1 })).toMatch(/colour/);
    // Valid but unusual (an env): the schema takes it, after loading.
    expect(await refused({ command: 'x', env: { A: 'b' } })).toBe('');
  });
});
