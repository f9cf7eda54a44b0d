/**
 * Hostile input at the contract boundary: whatever arrives over IPC or HTTP goes through
 * handleRequest, which must answer with a result or a typed error naming the field, and must not
 * write anything when it refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REQUEST_NAMES } from '../../shared/api.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors.ts';
import { parseTaskSpecNow } from '../../shared/task-spec-now.ts';
import { createQueueService, handleRequest } from '../../electron/core/service.ts';
import { testEngine } from '../helpers.ts';
import { hostileValue, nearValid, snapshot } from './hostile-values.ts';

describe('fuzzing the request boundary', () => {
  it('answers every hostile request with a result or a typed error naming the field, never a crash or a half-write', async () => {
    const engine = await testEngine();
    const service = createQueueService(engine);
    // Mutating requests whose refusal must leave the data exactly as it was.
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...REQUEST_NAMES.filter((n) => n !== 'purge')),
        fc.oneof(hostileValue, nearValid),
        async (name, input) => {
          const before = await snapshot(engine);
          try {
            await handleRequest(service, name, input);
          } catch (err) {
            if (err instanceof ValidationError) {
              expect(err.issues.length).toBeGreaterThan(0);
              for (const i of err.issues) expect(typeof i.message).toBe('string');
              expect(await snapshot(engine)).toBe(before);
              return;
            }
            if (err instanceof NotFoundError || err instanceof ConflictError) {
              expect(await snapshot(engine)).toBe(before);
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

  it('a batch with one hostile spec among good ones writes none of them', async () => {
    const engine = await testEngine();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 20 }), nearValid, async (at, bad) => {
        const specs: unknown[] = Array.from({ length: 20 }, () => ({ kind: 'sleep', payload: { ms: 0 } }));
        specs.splice(at, 0, bad);
        const before = (await engine.listTasks({})).total;
        try {
          await engine.enqueueMany(specs.map((s, i) => parseTaskSpecNow(s, `tasks[${i}]`)));
          expect((await engine.listTasks({})).total).toBe(before + 21);
        } catch (err) {
          if (!(err instanceof ValidationError)) throw err;
          expect(err.issues[0]!.path).toMatch(new RegExp(`^tasks\\[${at}\\]`));
          expect((await engine.listTasks({})).total).toBe(before);
        }
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});
