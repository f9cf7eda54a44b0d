import { describe, expect, it } from 'vitest';
import { boundEchoes } from '../../shared/echo.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';

describe('error messages that quote what the user gave', () => {
  it('keep short quoted values as they are', () => {
    const m = '--status: "runing" is not a status; did you mean \'running\'?';
    expect(boundEchoes(m)).toBe(m);
  });

  it('cut a long quoted value to its start and its length, in either quotes', () => {
    const v = 'a'.repeat(5000);
    expect(boundEchoes(`--kind: "${v}" is unknown`)).toBe(
      `--kind: "${'a'.repeat(60)}…" (5000 characters) is unknown`,
    );
    expect(boundEchoes(`unknown command '${v}'`)).toBe(
      `unknown command '${'a'.repeat(60)}…' (5000 characters)`,
    );
  });

  it('bound a whole message that echoes without quotes', () => {
    const out = boundEchoes(`payload: ${'b'.repeat(100_000)}`);
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(out).toMatch(/^payload: b+… \(100009 characters in all\)$/);
  });

  it('hold in the errors every face prints: validation issues and not-found messages', () => {
    const v = 'c'.repeat(100_000);
    const e = new ValidationError([{ path: 'group', message: `"${v}" is not a group name` }]);
    expect(e.message.length).toBeLessThan(200);
    expect(e.issues[0]!.message).toBe(`"${'c'.repeat(60)}…" (100000 characters) is not a group name`);
    expect(new NotFoundError(`no schedule named "${v}"`).message.length).toBeLessThan(200);
  });
});
