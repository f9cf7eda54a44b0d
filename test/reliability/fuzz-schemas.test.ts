/**
 * Hostile input at the contract boundary: whatever arrives over IPC or HTTP goes through
 * handleRequest, which must answer with a result or a typed error naming the field, and must not
 * write anything when it refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REQUEST_NAMES } from '../../shared/api.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors.ts';
import { createQueueService, handleRequest } from '../../electron/core/service.ts';
import { testEngine } from '../helpers.ts';

const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom('__proto__', 'constructor', 'prototype', '\uD800', '\uDFFF\uD800', '', ' ', '../..', '\0'),
  fc.string({ minLength: 1000, maxLength: 300_000 }).map((s) => s.slice(0, 300_000)),
);
const hostileNumber = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, -0, Number.MAX_SAFE_INTEGER + 2, -1, 1e308, 0.5),
  fc.integer(),
  fc.double(),
);
const deep = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const pollution = fc.constantFrom(
  JSON.parse('{"__proto__": {"polluted": true}}'),
  JSON.parse('{"constructor": {"prototype": {"polluted": true}}}'),
  JSON.parse('{"kind": "sleep", "payload": {"ms": 1, "__proto__": {"polluted": true}}}'),
);
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    pollution,
    fc.constantFrom(deep(5000), [deep(40)]),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom('kind', 'payload', 'ids', 'name', 'cron', 'everyMs', 'task')),
      tie('value'),
      {
        maxKeys: 5,
      },
    ),
  ),
})).value;

/** Almost-valid inputs: real field names with hostile values, so the schemas' inner checks run. */
const nearValid = fc.record(
  {
    kind: fc.oneof(fc.constantFrom('sleep', 'shell', 'http', 'sqlite-backup'), hostileString),
    name: hostileValue,
    group: hostileValue,
    priority: hostileNumber,
    maxAttempts: hostileNumber,
    timeout: hostileValue,
    delay: hostileNumber,
    runAt: hostileValue,
    payload: fc.oneof(
      hostileValue,
      fc.record({ ms: hostileNumber }, { requiredKeys: [] }),
      fc.record({ command: hostileValue, args: hostileValue }, { requiredKeys: [] }),
      fc.record({ url: hostileValue, method: hostileValue }, { requiredKeys: [] }),
    ),
    ids: fc.array(hostileNumber, { maxLength: 3 }),
    cron: fc.oneof(hostileString, fc.constantFrom('* * * * *', '61 * * * *', '0 0 30 2 *', '@daily')),
    everyMs: hostileNumber,
    timezone: fc.oneof(hostileString, fc.constantFrom('UTC', 'Europe/Berlin')),
    task: hostileValue,
  },
  { requiredKeys: [] },
);

function snapshot(engine: ReturnType<typeof testEngine>) {
  return JSON.stringify([
    engine.listTasks({ limit: 1000 }),
    engine.listSchedules().map(({ upcoming: _, ...s }) => s), // upcoming moves with the clock

    engine.stats(0).settings,
  ]);
}

describe('fuzzing the request boundary', () => {
  it('answers every hostile request with a result or a typed error naming the field, never a crash or a half-write', () => {
    const engine = testEngine();
    const service = createQueueService(engine);
    // Mutating requests whose refusal must leave the data exactly as it was.
    fc.assert(
      fc.property(
        fc.constantFrom(...REQUEST_NAMES.filter((n) => n !== 'purge')),
        fc.oneof(hostileValue, nearValid),
        (name, input) => {
          const before = snapshot(engine);
          try {
            handleRequest(service, name, input);
          } catch (err) {
            if (err instanceof ValidationError) {
              expect(err.issues.length).toBeGreaterThan(0);
              for (const i of err.issues) expect(typeof i.message).toBe('string');
              expect(snapshot(engine)).toBe(before);
              return;
            }
            if (err instanceof NotFoundError || err instanceof ConflictError) {
              expect(snapshot(engine)).toBe(before);
              return;
            }
            throw err;
          }
        },
      ),
      { numRuns: 600, seed: 20261203 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  }, 60_000);

  it('a batch with one hostile spec among good ones writes none of them', () => {
    const engine = testEngine();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), nearValid, (at, bad) => {
        const specs: unknown[] = Array.from({ length: 20 }, () => ({ kind: 'sleep', payload: { ms: 0 } }));
        specs.splice(at, 0, bad);
        const before = engine.listTasks({}).total;
        try {
          engine.enqueueMany(specs);
          expect(engine.listTasks({}).total).toBe(before + 21);
        } catch (err) {
          if (!(err instanceof ValidationError)) throw err;
          expect(err.issues[0]!.path).toMatch(new RegExp(`^tasks\\[${at}\\]`));
          expect(engine.listTasks({}).total).toBe(before);
        }
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});
