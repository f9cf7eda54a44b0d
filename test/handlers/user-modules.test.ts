import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadUserHandlers } from '../../electron/core/handlers/user-modules.ts';
import { ValidationError } from '../../shared/errors.ts';
import { tempDir, testEngine, waitFor } from '../helpers.ts';

// Modules in the user's folder cannot resolve Semaforo's packages, so the schema one brings
// imports zod by its full path, as a user with their own zod copy would.
const zodUrl = pathToFileURL(createRequire(import.meta.url).resolve('zod')).href;

const MODULES: Record<string, string> = {
  'greet.mjs': `
    import { z } from ${JSON.stringify(zodUrl)};
    export default {
      kind: 'greet',
      description: 'say hello to {name}',
      payload: z.strictObject({ name: z.string({ error: 'must be a name' }) }),
      run: async ({ name }, ctx) => { ctx.log('greeting ' + name); return { hello: name }; },
    };`,
  'flaky.ts': `
    interface Payload { code?: number }
    export const handler = {
      kind: 'flaky',
      description: 'fails the way the payload says',
      run(payload: Payload): never {
        const err = new Error('vendor says no') as Error & { permanent?: boolean };
        err.permanent = payload.code === 404;
        throw err;
      },
    };`,
  'throws.mjs': `throw new Error('broken on purpose');`,
  'invalid.mjs': `export default { kind: 'Bad Kind!', description: '', run: 42 };`,
  'empty.mjs': `export const unrelated = 1;`,
  'shadow.mjs': `export default { kind: 'shell', description: 'mine', run() {} };`,
  'types.d.ts': `export declare const x: number;`,
  'README.txt': `not a module`,
};

function handlerFolder(): string {
  const dir = tempDir();
  for (const [name, source] of Object.entries(MODULES)) fs.writeFileSync(path.join(dir, name), source);
  return dir;
}

describe('user handler modules', () => {
  it('loads the good modules and reports each broken one with its file, without failing', async () => {
    const dir = handlerFolder();
    const { handlers, errors } = await loadUserHandlers(dir);
    expect(handlers.map((h) => h.kind)).toEqual(['flaky', 'greet']);
    const byFile = Object.fromEntries(errors.map((e) => [path.basename(e.file), e.message]));
    expect(Object.keys(byFile).sort()).toEqual(['empty.mjs', 'invalid.mjs', 'shadow.mjs', 'throws.mjs']);
    expect(errors.every((e) => path.dirname(e.file) === dir)).toBe(true);
    expect(byFile['throws.mjs']).toBe('broken on purpose');
    expect(byFile['invalid.mjs']).toMatch(/export\.kind: must be 1-64 letters/);
    expect(byFile['invalid.mjs']).toMatch(/export\.description: must not be empty/);
    expect(byFile['invalid.mjs']).toMatch(/export\.run: must be a function/);
    expect(byFile['empty.mjs']).toMatch(/exports no handler/);
    expect(byFile['shadow.mjs']).toMatch(/kind "shell" is already defined \(built-in\)/);
  });

  it('treats a missing folder as empty', async () => {
    expect(await loadUserHandlers(path.join(tempDir(), 'handlers'))).toEqual({ handlers: [], errors: [] });
  });

  it('runs loaded kinds in the engine: listed as user kinds, payload checked at enqueue, errors mapped', async () => {
    const { handlers } = await loadUserHandlers(handlerFolder());
    const engine = await testEngine({ userHandlers: handlers });
    expect(
      engine.registry
        .list()
        .filter((k) => k.source === 'user')
        .map((k) => k.kind),
    ).toEqual(['flaky', 'greet']);

    // The module's own schema names the field.
    await expect(engine.enqueue({ kind: 'greet', payload: { name: 7 } })).rejects.toThrow(
      new ValidationError([{ path: 'payload.name', message: 'must be a name' }]),
    );
    // Without a schema any JSON object goes, but only an object.
    await expect(engine.enqueue({ kind: 'flaky', payload: [1] })).rejects.toThrow(
      /payload: must be a JSON object/,
    );

    engine.start();
    const greet = (await engine.enqueue({ kind: 'greet', payload: { name: 'Ada' } })).task;
    const gone = (await engine.enqueue({ kind: 'flaky', maxAttempts: 3, payload: { code: 404 } })).task;
    const busy = (await engine.enqueue({ kind: 'flaky', maxAttempts: 2, payload: { code: 500 } })).task;
    const done = (id: number) =>
      waitFor(async () => {
        const t = await engine.getTask(id);
        return ['done', 'failed'].includes(t.status) && t;
      }, `task ${id}`);
    const g = await done(greet.id);
    expect(g.status).toBe('done');
    expect(g.result).toEqual({ hello: 'Ada' });
    expect(g.history[0]!.output).toBe('greeting Ada');
    // `permanent: true` on a thrown error means no retry.
    const p = await done(gone.id);
    expect([p.status, p.attempts, p.error]).toEqual(['failed', 1, 'vendor says no']);
    const b = await done(busy.id);
    expect([b.status, b.attempts]).toEqual(['failed', 2]);
    await engine.stop();
  });
});
