/**
 * The IPC binding under hostile messages, in plain Node with the contract's real handlers and a
 * real engine: whatever frame sends it and whatever it says, the answer is a typed result that
 * survives the trip back over IPC, and a refused message writes nothing.
 * (test/desktop/controller.test.ts has the examples; these are the properties.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REQUEST_NAMES } from '../../shared/api.ts';
import type { IpcResult } from '../../shared/ipc.ts';
import { createQueueService } from '../../electron/core/service.ts';
import { silentLogger, type Logger } from '../../electron/core/logger.ts';
import { createIpcHandler, type IpcSender } from '../../electron/main/ipc-binding.ts';
import { testEngine } from '../helpers.ts';
import { deep, hostileString, hostileValue, nearValid, snapshot } from './hostile-values.ts';

/** As main.ts computes it: pathToFileURL(dist/renderer).href, which has no trailing slash. */
const FOLDER = 'file:///opt/semaforo/dist/renderer';
const WINDOW_ID = 7;
const ourWindow: IpcSender = {
  webContentsId: WINDOW_ID,
  frameUrl: `${FOLDER}/index.html`,
  isMainFrame: true,
};

/** Frame URLs, each labelled with whether it is a page of ours. */
const LABELLED_URLS: [string, boolean][] = [
  [`${FOLDER}/index.html`, true],
  [`${FOLDER}/index.html#/tasks/3`, true],
  [`${FOLDER}/index.html?x=1`, true],
  [`${FOLDER}/assets/app.js`, true],
  ['FILE:///opt/semaforo/dist/renderer/index.html', true], // the same location, spelt in capitals
  [`${FOLDER}-evil/index.html`, false], // a sibling folder sharing the prefix
  [`${FOLDER}.evil/index.html`, false],
  [`${FOLDER}x/index.html`, false],
  [FOLDER, false], // the folder itself is no page
  [`${FOLDER}/../../../../tmp/evil.html`, false],
  [`${FOLDER}/%2e%2e/%2e%2e/evil.html`, false],
  [`${FOLDER}/.%2e/evil.html`, false],
  [`${FOLDER}\\..\\..\\evil.html`, false], // backslashes are slashes in file: URLs
  ['file://evil.example/opt/semaforo/dist/renderer/index.html', false],
  ['file:///opt/semaforo/dist/', false],
  ['https://evil.example/index.html', false],
  ['http://localhost:5173/', false],
  ['about:blank', false],
  ['about:srcdoc', false],
  ['data:text/html,<script>1</script>', false],
  ['javascript:alert(1)', false],
  ['devtools://devtools/bundled/inspector.html', false],
  ['chrome-error://chromewebdata/', false],
  ['', false],
];

const frameUrl: fc.Arbitrary<{ url: string | undefined; ours: boolean }> = fc.oneof(
  fc.constantFrom(...LABELLED_URLS).map(([url, ours]) => ({ url, ours })),
  // Pages deeper in our folder, with names that stay inside it.
  fc
    .array(fc.stringMatching(/^[a-z0-9_-]{1,8}$/), { minLength: 1, maxLength: 4 })
    .map((parts) => ({ url: `${FOLDER}/${parts.join('/')}.html`, ours: true })),
  // Any other URL or text, and a frame that is gone (senderFrame null: no URL).
  fc.webUrl().map((url) => ({ url, ours: false })),
  hostileString.map((url) => ({ url, ours: false })),
  fc.constant({ url: undefined, ours: false }),
);

const sender = fc.record({
  webContentsId: fc.oneof(fc.constant(WINDOW_ID), fc.integer(), fc.constantFrom(0, -1, WINDOW_ID + 1)),
  frame: frameUrl,
  isMainFrame: fc.oneof(fc.constant(true), fc.boolean()),
  windowOpen: fc.oneof(fc.constant(true), fc.boolean()),
});

/** Valid requests that write, so a refusal that lets one through shows in the snapshot. */
const writes = fc.constantFrom<[string, unknown]>(
  ['enqueue', { kind: 'sleep', name: 'intruder', payload: { ms: 0 } }],
  ['updateSettings', { globalConcurrency: 99, paused: true }],
  ['createSchedule', { name: 'every-minute', everyMs: 60_000, task: { kind: 'sleep', payload: { ms: 0 } } }],
  ['updateGroup', { name: 'vendor', update: { concurrency: 1 } }],
  ['cancel', { ids: [1] }],
  ['remove', { ids: [2] }],
  ['purge', { olderThanMs: 0 }],
  ['pause', null],
);

/** Records what the binding logs; an `error` line means an input reached code that did not expect it. */
function recordingLogger() {
  const lines = { warn: [] as string[], error: [] as string[] };
  const logger: Logger = {
    info: () => {},
    warn: (m) => lines.warn.push(m),
    error: (m) => lines.error.push(m),
  };
  return { lines, logger };
}

async function seeded() {
  const engine = await testEngine();
  await engine.enqueue({ kind: 'sleep', name: 'one', payload: { ms: 0 } });
  await engine.enqueue({ kind: 'sleep', name: 'two', payload: { ms: 0 } });
  return engine;
}

/** What the renderer receives: the result after Electron's structured clone. */
function overTheWire(result: IpcResult): IpcResult {
  return structuredClone(result);
}

describe('IPC binding: messages from unexpected frames', () => {
  it('refuses every sender but the top frame of our window showing our page, and writes nothing for it', async () => {
    const engine = await seeded();
    const { lines, logger } = recordingLogger();
    let windowOpen = true;
    const handle = createIpcHandler({
      service: createQueueService(engine),
      trusted: () => ({ webContentsId: windowOpen ? WINDOW_ID : null, urlPrefix: FOLDER }),
      logger,
    });
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(sender, writes, async (s, [name, input]) => {
        windowOpen = s.windowOpen;
        const from: IpcSender = {
          webContentsId: s.webContentsId,
          frameUrl: s.frame.url,
          isMainFrame: s.isMainFrame,
        };
        const expectTrusted = s.windowOpen && s.webContentsId === WINDOW_ID && s.isMainFrame && s.frame.ours;
        const before = await snapshot(engine);
        const result = overTheWire(await handle(from, name, input));
        if (expectTrusted) {
          // Trusted: the request runs (it may still be refused on its merits, e.g. a removed id).
          if (!result.ok) expect(['NotFoundError', 'ConflictError']).toContain(result.error.name);
          return;
        }
        refused++;
        expect(result).toEqual({
          ok: false,
          error: {
            name: 'Forbidden',
            message: expect.stringMatching(
              /^refused: not from the (Semaforo window|top frame|Semaforo page)$/,
            ),
          },
        });
        expect(await snapshot(engine)).toBe(before);
      }),
      { numRuns: 400, seed: 80801 },
    );
    expect(refused).toBeGreaterThan(200);
    expect(lines.warn.length).toBe(refused);
    expect(lines.error).toEqual([]);
  });
});

/** Request names a hostile page might try: prototype members, near-misses, non-strings. */
const hostileName: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...REQUEST_NAMES),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'isPrototypeOf',
    'enqueue ',
    'Enqueue',
    'enqueue\0',
    '../enqueue',
    '',
  ),
  hostileString,
  fc.constantFrom(null, undefined, 42, -0, NaN, true, [], ['enqueue'], { name: 'enqueue' }),
  // Electron's structured clone never delivers one, but the binding must not depend on that:
  // String() throws on it.
  fc.constant(Object.create(null) as unknown),
);

/** Inputs past every size limit: a big payload, a long id list, deep nesting, a long name. */
const hugeInput = fc.constantFrom<unknown>(
  { kind: 'sleep', payload: { ms: 0, pad: 'x'.repeat(2_000_000) } },
  { kind: 'shell', payload: { command: 'x', args: Array.from({ length: 100_000 }, () => 'a') } },
  { ids: Array.from({ length: 200_000 }, (_, i) => i + 1) },
  { kind: 'sleep', payload: deep(100_000) },
  deep(100_000),
  { kind: 'sleep', name: 'n'.repeat(1_000_000), payload: { ms: 0 } },
  { name: 'x'.repeat(100_000), everyMs: 60_000, task: { kind: 'sleep', payload: { ms: 0 } } },
);

describe('IPC binding: malformed messages from our own window', () => {
  it('answers each with a result or a typed refusal that crosses IPC intact, and a refusal writes nothing', async () => {
    const engine = await seeded();
    const { lines, logger } = recordingLogger();
    const handle = createIpcHandler({
      service: createQueueService(engine),
      trusted: () => ({ webContentsId: WINDOW_ID, urlPrefix: FOLDER }),
      logger,
    });
    const counts = { ok: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        hostileName,
        fc.oneof(
          { weight: 4, arbitrary: fc.oneof(hostileValue, nearValid) },
          { weight: 1, arbitrary: hugeInput },
          // Inputs some requests accept, so the fuzz also crosses the line into a result.
          {
            weight: 1,
            arbitrary: fc.constantFrom(undefined, null, {}, { kind: 'sleep', payload: { ms: 0 } }),
          },
        ),
        async (name, input) => {
          const before = await snapshot(engine);
          const result = overTheWire(await handle(ourWindow, name, input));
          if (result.ok) {
            counts.ok++;
            return;
          }
          counts.refused++;
          expect(['ValidationError', 'NotFoundError', 'ConflictError']).toContain(result.error.name);
          expect(result.error.message.length).toBeGreaterThan(0);
          if (result.error.name === 'ValidationError' && typeof name === 'string')
            for (const issue of result.error.issues ?? []) expect(typeof issue.path).toBe('string');
          expect(await snapshot(engine)).toBe(before);
        },
      ),
      { numRuns: 400, seed: 80802 },
    );
    // The fuzz reached both outcomes, and nothing fell through to the "unexpected failure" log.
    expect(counts.ok).toBeGreaterThan(0);
    expect(counts.refused).toBeGreaterThan(300);
    expect(lines.error).toEqual([]);
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('names the problem: unknown names are NotFoundError, non-string names and bad inputs ValidationError', async () => {
    const engine = await seeded();
    const handle = createIpcHandler({
      service: createQueueService(engine),
      trusted: () => ({ webContentsId: WINDOW_ID, urlPrefix: FOLDER }),
      logger: silentLogger,
    });
    const before = await snapshot(engine);
    for (const name of ['__proto__', 'constructor', 'toString', 'Enqueue'])
      expect(await handle(ourWindow, name, {})).toMatchObject({
        ok: false,
        error: { name: 'NotFoundError' },
      });
    for (const name of [Object.create(null) as unknown, null, ['enqueue']])
      expect(await handle(ourWindow, name, {})).toMatchObject({
        ok: false,
        error: { name: 'ValidationError', message: 'request name must be a string' },
      });
    expect(
      await handle(
        ourWindow,
        'enqueue',
        JSON.parse('{"kind":"sleep","payload":{"ms":0},"__proto__":{"polluted":1}}'),
      ),
    ).toMatchObject({ ok: false, error: { name: 'ValidationError', issues: [{ message: /__proto__/ }] } });
    expect(await handle(ourWindow, 'enqueue', { kind: 'sleep', payload: deep(100_000) })).toMatchObject({
      ok: false,
      error: { name: 'ValidationError', issues: [{ path: 'payload', message: /nested deeper than 32/ }] },
    });
    expect(
      await handle(ourWindow, 'retry', { ids: Array.from({ length: 200_000 }, (_, i) => i + 1) }),
    ).toMatchObject({
      ok: false,
      error: { name: 'ValidationError', issues: [{ path: 'ids', message: /at most 100000/ }] },
    });
    expect(await snapshot(engine)).toBe(before);
    // A refused sender is told so even when its message is malformed too.
    expect(
      await handle({ ...ourWindow, isMainFrame: false }, Object.create(null) as unknown, deep(10)),
    ).toMatchObject({
      ok: false,
      error: { name: 'Forbidden' },
    });
  });
});
