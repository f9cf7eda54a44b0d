/**
 * Hostile argv (see hostile-argv.test.ts) for the commands that start something: `work` and
 * `serve` refuse bad options before starting and stop cleanly when they start; `run` refuses bad
 * task options before running its command.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { snapshot } from './hostile-values.ts';
import { durationText, numberText, word } from './argv-arbitraries.ts';
import { expectCleanRefusal, sandbox } from './cli-sandbox.ts';

describe('CLI argument parsing under hostile argv', () => {
  it('work and serve refuse bad options before starting anything, and stop cleanly when they start', async () => {
    const { engine, run } = await sandbox({ signalAtOnce: true });
    const outcomes = { started: 0, refused: 0 };
    const argv = fc.oneof(
      fc
        .record({
          concurrency: fc.option(fc.oneof(fc.integer({ min: 1, max: 8 }).map(String), numberText), {
            nil: undefined,
          }),
          // 30d: past node's timer limit (the grace must still hold, see below)
          grace: fc.option(fc.oneof(fc.constantFrom('0', '10s', '30d'), durationText), { nil: undefined }),
          drain: fc.boolean(),
        })
        .map((r) => [
          'work',
          ...(r.concurrency === undefined ? [] : [`--concurrency=${r.concurrency}`]),
          ...(r.grace === undefined ? [] : [`--grace=${r.grace}`]),
          ...(r.drain ? ['--drain'] : []),
        ]),
      fc
        .record({
          // (a valid port is always 0, a free one: this machine's 7391 may be taken)
          port: fc.oneof(
            { weight: 3, arbitrary: fc.constant('0') },
            fc.constantFrom('-1', '65536', '99999', '0x50', ' 0', '1e3', 'http', ''),
            numberText.filter((p) => p !== '0' && /^\d+$/.test(p) === false),
          ),
          host: fc.option(
            fc.constantFrom(
              '127.0.0.1',
              'localhost',
              'evil.example',
              '0.0.0.0',
              '::',
              '127.0.0.1.evil.example',
              '',
            ),
            { nil: undefined },
          ),
        })
        .map((r) => [
          'serve',
          '--no-work',
          `--port=${r.port}`,
          ...(r.host === undefined ? [] : [`--host=${r.host}`]),
        ]),
    );
    await fc.assert(
      fc.asyncProperty(argv, async (args) => {
        const before = await snapshot(engine);
        const o = await run(args);
        if (o.code === 2) {
          outcomes.refused++;
          expectCleanRefusal(o, args);
          expect(await snapshot(engine)).toBe(before);
          return;
        }
        expect(o.code, `${JSON.stringify(args)}\n${o.err}`).toBe(0);
        // It started (and stopped on the signal): work says where it dispatched from, serve its URL.
        expect(o.err + o.out).toMatch(/semaforo work: dispatching from|^Dashboard: http:\/\/[^\n]+#token=/m);
        outcomes.started++;
      }),
      { numRuns: 60, seed: 8011 },
    );
    expect(outcomes.started).toBeGreaterThan(10);
    expect(outcomes.refused).toBeGreaterThan(10);
  });

  it('run refuses bad task options before running anything', async () => {
    const { engine, run } = await sandbox();
    const marker = path.join(tempDir(), 'ran');
    // The command leaves a file behind: a refused run must not have started it.
    const command = [process.execPath, '-e', `require('fs').appendFileSync(${JSON.stringify(marker)}, 'x')`];
    // (not --delay or --at: a valid one has the run wait its time, an hour or a year)
    const option = fc
      .constantFrom('--priority', '--max-attempts', '--timeout', '--unique', '--group', '--name')
      .chain((n) =>
        fc.tuple(fc.constant(n), ['--group', '--name', '--unique'].includes(n) ? word : durationText),
      );
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(option, async ([name, value]) => {
        const argv = ['run', '--quiet', `${name}=${value}`, '--', ...command];
        const ranBefore = fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').length : 0;
        const before = await snapshot(engine);
        const o = await run(argv);
        if (o.code === 2) {
          refused++;
          expectCleanRefusal(o, argv);
          expect(await snapshot(engine)).toBe(before);
          expect(fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').length : 0).toBe(ranBefore);
          return;
        }
        // It ran: its own exit code, or 124 when a tiny --timeout cut it short.
        expect([0, 124], `${JSON.stringify(argv)}\n${o.err}`).toContain(o.code);
      }),
      { numRuns: 40, seed: 8012 },
    );
    expect(refused).toBeGreaterThan(20);
  });
});
