/**
 * What hostile argv is made of, for the CLI's property tests: numbers, durations, words, JSON and
 * times both usual and hostile, each command's options, and whole argv built from them.
 */
import fc from 'fast-check';
import { hostileString } from './hostile-values.ts';

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
export const numberText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NUMBERISH) },
  fc.integer({ min: -20, max: 200 }).map(String),
  fc.double().map(String),
  fc.bigInt().map(String),
);
export const durationText = fc.oneof(
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
export const word = fc.oneof(
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
export const isoText = fc.oneof(
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
export const commandArgv: fc.Arbitrary<{ command: string; argv: string[] }> = fc
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

/** The last value given for `--opt` in argv (before any `--`), either spelling. */
export function optionValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  for (let i = 0; i < head.length; i++) {
    if (head[i] === name && i + 1 < head.length) value = head[++i];
    else if (head[i]!.startsWith(`${name}=`)) value = head[i]!.slice(name.length + 1);
  }
  return value;
}
