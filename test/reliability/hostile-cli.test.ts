/**
 * The CLI's argument parsing under random and hostile argv, in-process through runCli (the same
 * function bin/semaforo.js calls, with the io injected): huge strings, NaN/Infinity/-0/1e308,
 * negative numbers, prototype names, unknown options, lone surrogates, `--` anywhere, JSON
 * payloads deep, huge or invalid. Every run ends in a clean refusal (exit 2, one line naming the
 * option) with the database unchanged, or in a correct result; never an exception.
 * A few spawned runs at the end confirm the real binary answers the same.
 */
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../shared/domain.ts';
import { parseDuration } from '../../shared/durations.ts';
import { runCli } from '../../electron/cli/program.ts';
import type { CliIo } from '../../electron/cli/io.ts';
import { tempDir, testEngine, waitFor } from '../helpers.ts';
import { BIN, cli } from '../cli/cli-helpers.ts';
import { outputOf } from '../process-output.ts';
import { deep, hostileString, snapshot } from './hostile-values.ts';

interface Outcome {
  code: number;
  out: string;
  err: string;
}

/**
 * A queue file and a way to run `semaforo ARGS` on it in this process. `--db` and `--handlers`
 * are always given (an environment variable of the developer's shell must not pick another file),
 * and a signal arrives at once when `signalAtOnce`, so `work` and `serve` stop as soon as they start.
 */
async function sandbox({ signalAtOnce = false } = {}) {
  const dir = tempDir();
  const db = path.join(dir, 'queue.db');
  const handlers = path.join(dir, 'handlers');
  fs.mkdirSync(handlers);
  const engine = await testEngine({ file: db });
  const run = async (args: readonly string[], stdin = ''): Promise<Outcome> => {
    let out = '';
    let err = '';
    const io: CliIo = {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      stdin: Readable.from(stdin ? [stdin] : []),
      env: { SEMAFORO_HOME: dir },
      interactive: false,
      onSignal: (handler) => {
        if (!signalAtOnce) return () => {};
        const t = setImmediate(() => handler('SIGTERM'));
        return () => clearImmediate(t);
      },
    };
    const code = await runCli(['--db', db, '--handlers', handlers, ...args], io);
    return { code, out, err };
  };
  return { dir, db, engine, run };
}

/**
 * The first stderr line of a refusal names what to change: an option (`--priority`), an
 * argument (`id[2]`, `command`), a field of --payload or of a --stdin line, or, from commander
 * itself, the unknown option or command or the missing argument.
 */
const NAMES_IT =
  /^(semaforo: (--[a-z][a-z-]*(\[\d+\])?|payload(\.\S+?)?|id(\[\d+\])?|ids\[\d+\]|command|name|group|stdin|line \d+(: \S+?)?|tasks\[\d+\](\.\S+?)?): \S|semaforo: (unknown option '[^']+'|unknown command '[^']+'|option '[^']+' argument (missing|'.*' is invalid)|too many arguments|missing required argument '[^']+'|required option|option '[^']+' cannot be used with option '[^']+'))/s;

function expectCleanRefusal(o: Outcome, argv: readonly string[]) {
  const what = JSON.stringify(argv).slice(0, 300);
  expect(o.code, `${what}\n${o.err}`).toBe(2);
  const lines = o.err.split('\n').filter((l) => l !== '');
  expect(lines.length, what).toBeGreaterThan(0);
  expect(lines[0], what).toMatch(NAMES_IT);
  // One line (commander's hint, and any "did you mean", end the same line).
  const hint = /^\((add --help for usage|Did you mean .+\?)\)$/;
  expect(
    lines.slice(1).filter((l) => !hint.test(l)),
    `${what}\n${o.err}`,
  ).toEqual([]);
  expect(o.out, what).toBe('');
}

// ---- what hostile argv is made of ----

const NUMBERISH = [
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '0',
  '1',
  '5',
  '9',
  '10',
  '1e308',
  '-1e308',
  '1e-7',
  '0x10',
  '0b1',
  '1_000',
  '+5',
  '05',
  '5.0',
  '5.5',
  '-1',
  ' 5',
  '5 ',
  '٣', // an Arabic-Indic digit
  '9007199254740993',
  '99999999999999999999',
  '1e3',
  '',
] as const;
const numberText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NUMBERISH) },
  fc.integer({ min: -20, max: 200 }).map(String),
  fc.double().map(String),
  fc.bigInt().map(String),
);
const durationText = fc.oneof(
  numberText,
  fc.constantFrom(
    '500ms',
    '30s',
    '5m',
    '2h',
    '1d',
    '1h30m',
    '-5s',
    '5x',
    '1e3ms',
    '1.5s',
    '0.0001ms',
    `${'9'.repeat(400)}d`,
    '10000000d',
    'Infinityms',
    'forever',
    '1 m',
    '0',
  ),
);
/** Words: hostile strings (huge, lone surrogates, NUL, prototype names) and argv look-alikes. */
const word = fc.oneof(
  hostileString,
  fc.constantFrom('-', '--', '-1', '--x', '--json', '-v', '--priority', '--payload', '-p', '-k', 'é', '😀'),
  fc.stringMatching(/^[a-z][a-z0-9._:-]{0,12}$/),
);
const jsonText = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.constantFrom(
    '{"ms":0}',
    '{"ms":-0}',
    '{"ms":1e400}',
    '{"ms":0,"__proto__":{"polluted":true}}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"command":"echo","args":["\\ud800"]}',
    '{"method":"GET","url":"http://127.0.0.1:9/"}',
    `{"ms":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
    `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
    `{"pad":"${'x'.repeat(300_000)}"}`,
    '{',
    '',
    'null',
    '[]',
    '"x"',
  ),
);
const isoText = fc.oneof(
  fc.date({ min: new Date(-1e13), max: new Date(1e13), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom(
    '2026-12-03T03:47:00Z',
    '2026-12-03T03:47:00+02:00',
    '2026-12-03T03:47:00',
    '2026-13-45T00:00:00Z',
    '+275760-09-13T00:00:00.001Z',
    '1969-12-31T23:59:59Z',
    'tomorrow',
    '0',
  ),
);

type Value = fc.Arbitrary<string>;
/** The options of a command, each with the text it is usually given and hostile text. */
const TASK_OPTIONS: Record<string, Value> = {
  '--kind': fc.oneof(fc.constantFrom('sleep', 'shell', 'http', 'sqlite-backup', 'nope'), word),
  '--name': word,
  '--group': fc.oneof(fc.constantFrom('default', 'vendor', '../../etc', 'a'.repeat(65)), word),
  '--priority': numberText,
  '--max-attempts': numberText,
  '--timeout': durationText,
  '--delay': durationText,
  '--at': isoText,
  '--unique': word,
  '--payload': jsonText,
  '--cwd': word,
};
const COMMANDS: Record<string, { argv: string[]; options: Record<string, Value>; positional?: Value }> = {
  enqueue: { argv: ['enqueue'], options: TASK_OPTIONS },
  list: {
    argv: ['list'],
    options: {
      '--status': fc.oneof(
        fc.constantFrom('pending', 'failed,done', 'stuck', 'pending,,', '__proto__'),
        word,
      ),
      '--group': word,
      '--kind': word,
      '--search': word,
      '--sort': fc.oneof(fc.constantFrom('createdAt', 'name', '__proto__'), word),
      '--order': fc.constantFrom('asc', 'desc', 'up'),
      '--limit': numberText,
      '--offset': numberText,
    },
  },
  show: { argv: ['show'], options: {}, positional: fc.oneof(numberText, word) },
  stats: { argv: ['stats'], options: { '--failures': numberText } },
  retry: {
    argv: ['retry'],
    options: { '--failed': fc.constant(''), '--group': word, '--kind': word },
    positional: fc.oneof(numberText, word),
  },
  cancel: { argv: ['cancel'], options: {}, positional: fc.oneof(numberText, word) },
  delete: { argv: ['delete'], options: {}, positional: fc.oneof(numberText, word) },
  pause: { argv: ['pause'], options: {}, positional: word },
  resume: { argv: ['resume'], options: {}, positional: word },
  purge: { argv: ['purge'], options: { '--older-than': durationText } },
  'group set': {
    argv: ['group', 'set'],
    options: {
      '--concurrency': fc.oneof(numberText, fc.constant('none')),
      '--rate': fc.oneof(
        fc.constantFrom(
          '10/min',
          '5/s',
          '30/15m',
          'none',
          '0/s',
          '1/0s',
          '1/1e308d',
          '99999999999999999999/s',
          '5 per second',
        ),
        fc.tuple(numberText, durationText).map(([n, d]) => `${n}/${d}`),
      ),
    },
    positional: fc.oneof(fc.constantFrom('vendor', '__proto__'), word),
  },
  settings: {
    argv: ['settings'],
    options: {
      '--concurrency': numberText,
      '--retention': durationText,
      '--notify': fc.constantFrom('on', 'off', 'maybe'),
      '--notify-groups': fc.oneof(fc.constantFrom('all', 'a,b', ',,', '__proto__'), word),
      '--webhook': fc.oneof(
        fc.constantFrom(
          'none',
          'https://example.com/hook',
          'javascript:alert(1)',
          'http://u:p@example.com/',
          'http://\ud800/',
        ),
        word,
      ),
    },
  },
  'schedule add': {
    argv: ['schedule', 'add'],
    options: {
      ...TASK_OPTIONS,
      '--cron': fc.oneof(
        fc.constantFrom('30 2 * * *', '@daily', '61 * * * *', '* * * * * * * *', '0 0 31 2 *'),
        word,
      ),
      '--tz': fc.oneof(fc.constantFrom('UTC', 'Europe/Berlin', 'Mars/Olympus', '__proto__'), word),
      '--every': durationText,
      '--missed': fc.constantFrom('skip', 'once', 'all', 'some'),
      '--overlap': fc.constantFrom('allow', 'skip', 'never'),
      '--paused': fc.constant(''),
    },
    positional: fc.oneof(fc.constantFrom('nightly', '__proto__', 'constructor'), word),
  },
  'schedule preview': {
    argv: ['schedule', 'preview'],
    options: {
      '--cron': fc.oneof(fc.constantFrom('30 2 * * *', '61 * * * *'), word),
      '--tz': fc.oneof(fc.constantFrom('UTC', 'Mars/Olympus'), word),
      '--every': durationText,
      '--count': numberText,
    },
  },
  'schedule show': { argv: ['schedule', 'show'], options: {}, positional: word },
  'schedule pause': { argv: ['schedule', 'pause'], options: {}, positional: word },
  'schedule remove': { argv: ['schedule', 'remove'], options: {}, positional: word },
  'schedule run-now': { argv: ['schedule', 'run-now'], options: {}, positional: word },
  kinds: { argv: ['kinds'], options: {} },
};
/** Flags that take no value. */
const SWITCHES = new Set(['--failed', '--paused']);

/** One option as users (and attackers) spell it: `--opt value`, `--opt=value`, or cut short. */
function optionArgv(name: string, value: Value): fc.Arbitrary<string[]> {
  if (SWITCHES.has(name)) return fc.constant([name]);
  return fc
    .tuple(value, fc.constantFrom('separate', 'separate', 'separate', 'equals', 'equals', 'missing'))
    .map(([v, form]) => (form === 'separate' ? [name, v] : form === 'equals' ? [`${name}=${v}`] : [name]));
}

/** A whole argv for one command: its options (valid and not), strays, `--` and words after it. */
const commandArgv: fc.Arbitrary<{ command: string; argv: string[] }> = fc
  .constantFrom(...Object.keys(COMMANDS))
  .chain((command) => {
    const spec = COMMANDS[command]!;
    const names = Object.keys(spec.options);
    const option = names.length
      ? fc.constantFrom(...names).chain((n) => optionArgv(n, spec.options[n]!))
      : fc.constant<string[]>([]);
    return fc
      .record({
        options: fc.array(option, { maxLength: 4 }),
        positional: spec.positional ? fc.array(spec.positional, { maxLength: 3 }) : fc.constant([]),
        // (never a stray --db: it would take the next word as a file to create here)
        stray: fc.option(fc.constantFrom('--bogus', '-x', '--json', '-v'), { nil: undefined, freq: 4 }),
        after: fc.option(fc.array(word, { maxLength: 3 }), { nil: undefined, freq: 3 }),
        json: fc.boolean(),
      })
      .map((r) => ({
        command,
        argv: [
          ...(r.json ? ['--json'] : []),
          ...spec.argv,
          ...r.options.flat(),
          ...r.positional,
          ...(r.stray === undefined ? [] : [r.stray]),
          ...(r.after ? ['--', ...r.after] : []),
        ],
      }));
  });

// ---- the properties ----

/** The last value given for `--opt` in argv (before any `--`), either spelling. */
function optionValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  for (let i = 0; i < head.length; i++) {
    if (head[i] === name && i + 1 < head.length) value = head[++i];
    else if (head[i]!.startsWith(`${name}=`)) value = head[i]!.slice(name.length + 1);
  }
  return value;
}

/** What an enqueued task must look like: inside every limit, and what the options in `argv` said. */
function expectSaneTask(task: Task, argv: readonly string[]) {
  const what = JSON.stringify(argv).slice(0, 300);
  expect(Number.isInteger(task.priority) && task.priority >= 0 && task.priority <= 9, what).toBe(true);
  expect(Number.isInteger(task.maxAttempts) && task.maxAttempts >= 1 && task.maxAttempts <= 100, what).toBe(
    true,
  );
  expect(task.timeout === null || (Number.isInteger(task.timeout) && task.timeout >= 1), what).toBe(true);
  expect(Number.isFinite(task.runAt) && task.runAt >= 0, what).toBe(true);
  expect(task.name.length > 0 && task.name.length <= 200 && !/\p{Cs}/u.test(task.name), what).toBe(true);
  const priority = optionValue(argv, '--priority');
  if (priority !== undefined) expect(task.priority, what).toBe(Number(priority) || 0); // -0 is 0
  const attempts = optionValue(argv, '--max-attempts');
  if (attempts !== undefined) expect(task.maxAttempts, what).toBe(Number(attempts));
  const group = optionValue(argv, '--group');
  if (group !== undefined) expect(task.group, what).toBe(group);
  const name = optionValue(argv, '--name');
  if (name !== undefined) expect(task.name, what).toBe(name);
}

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

describe('the default name of a shell task', () => {
  it('is its command line cut on a character boundary, never half an emoji or a lone surrogate', async () => {
    const { engine, run } = await sandbox();
    const long = `a${'😀'.repeat(150)}`; // 301 UTF-16 units: a cut at 200 splits an emoji
    for (const words of [[long], ['echo', '\uD800x']]) {
      const o = await run(['--json', 'enqueue', '--', ...words]);
      expect(o.code, o.err).toBe(0);
      const task = await engine.getTask((JSON.parse(o.out) as Task).id);
      expect(task.name.length).toBeLessThanOrEqual(200);
      expect(task.name).not.toMatch(/\p{Cs}/u);
      expect(task.payload).toMatchObject({ command: words[0], args: words.slice(1) });
    }
  });
});

describe('work --grace longer than a node timer can wait', () => {
  it('still lets running tasks finish (node fires a timer over 2^31-1 ms after 1 ms)', async () => {
    const engine = await testEngine();
    const { task } = await engine.enqueue({ kind: 'sleep', payload: { ms: 300 } });
    engine.start();
    await waitFor(async () => (await engine.getTask(task.id)).status === 'running', 'the task to start');
    await engine.stop(30 * 86_400_000); // `work --grace 30d`
    expect((await engine.getTask(task.id)).status).toBe('done');
  });
});

describe('the real binary', () => {
  it('answers hostile argv as runCli does: same exit code, same first line, nothing written', async () => {
    const cases: string[][] = [
      ['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--priority=__proto__'],
      ['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--priority', '99999999999999999999999'],
      ['enqueue', '--kind', 'sleep', '--payload', `{"ms":${'['.repeat(30_000)}${']'.repeat(30_000)}}`],
      ['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--timeout', 'Infinity'],
      ['list', '--limit', '-0', '--bogus'],
    ];
    const { db, engine, run } = await sandbox();
    const spawned = await Promise.all(cases.map((args) => cli(args, { db })));
    for (const [i, args] of cases.entries()) {
      const inProcess = await run(args);
      const real = spawned[i]!;
      expect(real.code, args.join(' ').slice(0, 100)).toBe(inProcess.code);
      expect(real.stderr.split('\n')[0]).toBe(inProcess.err.split('\n')[0]);
      expectCleanRefusal({ code: real.code ?? -1, out: real.stdout, err: real.stderr }, args);
    }
    // Bytes that are not UTF-8 (here a lone 0xFF, put in argv by the shell) arrive as U+FFFD.
    const bad = await outputOf(
      spawn(
        '/bin/sh',
        [
          '-c',
          `exec "$0" "$1" --db "$2" enqueue --kind sleep --payload '{"ms":0}' --group "x$(printf '\\377')"`,
          process.execPath,
          BIN,
          db,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SEMAFORO_HOME: path.dirname(db) } },
      ),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^semaforo: --group: must be 1-64 letters/);
    expect((await engine.listTasks()).total).toBe(0);
  }, 60_000);
});
