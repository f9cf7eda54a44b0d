/**
 * The CLI's argument parsing under random and hostile argv, in-process through runCli (the same
 * function bin/semaforo.js calls, with the io injected): huge strings, NaN/Infinity/-0/1e308,
 * negative numbers, prototype names, unknown options, lone surrogates, `--` anywhere, JSON
 * payloads deep, huge or invalid. Every run ends in a clean refusal (exit 2, one line naming the
 * option) with the database unchanged, or in a correct result; never an exception. Here: every
 * command, and enqueue (options and --stdin) in depth.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../shared/domain.ts';
import { parseDuration } from '../../shared/durations.ts';
import { deep, snapshot } from './hostile-values.ts';
import { commandArgv, durationText, isoText, numberText, word } from './argv-arbitraries.ts';
import { expectCleanRefusal, expectSaneTask, sandbox } from './cli-sandbox.ts';

describe('CLI argument parsing under hostile argv', () => {
  it('answers every argv with a correct result or a one-line refusal naming the option, writing nothing then', async () => {
    const { engine, run } = await sandbox();
    // Something to show, retry, cancel and delete.
    await engine.enqueueMany(
      Array.from({ length: 5 }, (_, i) => ({ kind: 'sleep', name: `t${i}`, payload: { ms: 0 } })),
    );
    await engine.createSchedule({
      name: 'nightly',
      cron: '30 2 * * *',
      task: { kind: 'sleep', payload: { ms: 0 } },
    });
    const outcomes = { ok: 0, refused: 0, failed: 0 };
    await fc.assert(
      fc.asyncProperty(commandArgv, async ({ command, argv }) => {
        const before = await snapshot(engine);
        const maxIdBefore = Math.max(0, ...(await engine.listTasks({ limit: 1000 })).tasks.map((t) => t.id));
        const o = await run(argv);
        expect([0, 1, 2], `${JSON.stringify(argv).slice(0, 300)}\n${o.err}`).toContain(o.code);
        if (o.code === 2) {
          outcomes.refused++;
          expectCleanRefusal(o, argv);
          expect(await snapshot(engine)).toBe(before);
          return;
        }
        if (o.code === 1) {
          // Something named does not exist, or an action its status does not allow.
          outcomes.failed++;
          expect(o.err).toMatch(/^semaforo: [^\n]+\n$/);
          expect(await snapshot(engine)).toBe(before);
          return;
        }
        outcomes.ok++;
        const helped = /^Usage:|^0\.1\.0\n$/m.test(o.out);
        if (command === 'enqueue' && !helped) {
          // It printed the task (--json) or its id; a held unique key answers with the old task.
          const id = o.out.trimStart().startsWith('{')
            ? (JSON.parse(o.out) as Task).id
            : Number.parseInt(o.out, 10);
          const task = await engine.getTask(id);
          expectSaneTask(task, id > maxIdBefore ? argv : []);
        }
      }),
      { numRuns: 500, seed: 8008 },
    );
    // The mix reached every outcome, mostly refusals.
    expect(outcomes.ok).toBeGreaterThan(10);
    expect(outcomes.refused).toBeGreaterThan(250);
    expect(Object.prototype).not.toHaveProperty('polluted');
  }, 60_000);

  it('enqueue: a refusal names an option given, an acceptance stores exactly what the options said', async () => {
    const { engine, run } = await sandbox();
    // Each option either plausible or hostile, so both outcomes come up often.
    const option = fc.oneof(
      fc.tuple(fc.constant('--priority'), fc.oneof(fc.integer({ min: 0, max: 9 }).map(String), numberText)),
      fc.tuple(
        fc.constant('--max-attempts'),
        fc.oneof(fc.integer({ min: 1, max: 100 }).map(String), numberText),
      ),
      fc.tuple(
        fc.constant('--timeout'),
        fc.oneof(fc.constantFrom('30s', '5m', '1h30m', '500', '7d'), durationText),
      ),
      fc.tuple(fc.constant('--delay'), fc.oneof(fc.constantFrom('5m', '1d', '365d', '366d'), durationText)),
      fc.tuple(fc.constant('--at'), isoText),
      fc.tuple(fc.constant('--group'), fc.oneof(fc.stringMatching(/^[a-z][a-z0-9._:-]{0,20}$/), word)),
      fc.tuple(fc.constant('--name'), fc.oneof(fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,40}$/), word)),
      fc.tuple(fc.constant('--unique'), fc.oneof(fc.uuid(), word)),
    );
    const given = fc.uniqueArray(option, { selector: ([name]) => name, maxLength: 4 });
    const outcomes = { stored: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(given, fc.boolean(), async (options, equals) => {
        const flat = options.flatMap(([n, v]) => (equals ? [`${n}=${v}`] : [n, v]));
        const argv = ['--json', 'enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', ...flat];
        const before = await snapshot(engine);
        const maxIdBefore = Math.max(0, ...(await engine.listTasks({ limit: 1000 })).tasks.map((t) => t.id));
        const o = await run(argv);
        if (o.code === 2) {
          outcomes.refused++;
          expectCleanRefusal(o, argv);
          // It names an option of this argv. (Commander takes global options such as -v out of
          // the argv first, even where one stands as a value: `--unique -v --at T` leaves
          // `--unique --at T`, whose stray T is then refused as a command for --kind sleep.)
          const named = /^semaforo: (--[a-z-]+): |option '(?:-[a-z], )?(--[a-z-]+)/.exec(o.err);
          expect(named, o.err).not.toBeNull();
          expect([...options.map(([n]) => n), '--kind', '--payload'], o.err).toContain(
            named![1] ?? named![2],
          );
          expect(await snapshot(engine)).toBe(before);
          return;
        }
        expect(o.code, `${JSON.stringify(argv).slice(0, 300)}\n${o.err}`).toBe(0);
        const task = JSON.parse(o.out) as Task;
        if (task.id <= maxIdBefore) {
          // A held unique key: the task already queued under it comes back, nothing new.
          expect(task.unique).toBe(options.find(([n]) => n === '--unique')![1]);
          expect(await snapshot(engine)).toBe(before);
          return;
        }
        outcomes.stored++;
        expectSaneTask(task, argv);
        for (const [name, value] of options) {
          if (name === '--timeout') expect(task.timeout).toBe(parseDuration(value));
          if (name === '--delay') expect(task.runAt - task.createdAt).toBe(parseDuration(value));
          if (name === '--at') expect(task.runAt).toBe(Date.parse(value));
          if (name === '--unique') expect(task.unique).toBe(value);
        }
      }),
      { numRuns: 250, seed: 8009 },
    );
    expect(outcomes.stored).toBeGreaterThan(40);
    expect(outcomes.refused).toBeGreaterThan(40);
  });

  it('enqueue --stdin writes every spec or none', async () => {
    const { engine, run } = await sandbox();
    const good = JSON.stringify({ kind: 'sleep', payload: { ms: 0 } });
    const line = fc.oneof(
      { weight: 6, arbitrary: fc.constant(good) },
      fc.json({ maxDepth: 2 }),
      fc.constantFrom(
        '',
        '   ',
        '{',
        '{"kind":"sleep","payload":{"ms":0},"__proto__":{}}',
        JSON.stringify({ kind: 'sleep', payload: deep(100) }),
      ),
    );
    const seen = { all: 0, none: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 30 }),
        fc.constantFrom('\n', '\r\n'),
        async (lines, eol) => {
          const before = await snapshot(engine);
          const total = (await engine.listTasks({ limit: 1 })).total;
          const o = await run(['enqueue', '--stdin'], lines.join(eol));
          if (o.code === 2) {
            seen.none++;
            expectCleanRefusal(o, ['enqueue', '--stdin', ...lines]);
            expect(await snapshot(engine)).toBe(before);
            return;
          }
          expect(o.code, o.err).toBe(0);
          seen.all++;
          expect((await engine.listTasks({ limit: 1 })).total).toBe(
            total + lines.filter((l) => l.trim() !== '').length,
          );
        },
      ),
      { numRuns: 100, seed: 8010 },
    );
    expect(seen.all).toBeGreaterThan(5);
    expect(seen.none).toBeGreaterThan(20);
  });
});
