/**
 * How `semaforo` starts: bin/semaforo.js runs the build in dist/cli while it matches the
 * sources and the sources otherwise, `--version`/`--help` load no command, no schema library
 * and no SQLite, and `enqueue`/`run` of a shell command no schema library. Checked on a copy of the project (its own dist/, its own sources) so
 * editing it cannot disturb the checkout the tests run from.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Help } from 'commander';
import { COMMANDS, commandNamed } from '../../electron/cli/command-table.ts';
import { CliContext } from '../../electron/cli/context.ts';
import { processIo } from '../../electron/cli/io.ts';
import { outputOf } from '../process-output.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Prints every module URL the process loads to stderr, one `loaded: URL` line each: those Node
// loads, and the build's chunks, which bin/cli-loader.js reads itself.
const TRACE = `data:text/javascript,${encodeURIComponent(
  "import { registerHooks } from 'node:module'; import fs from 'node:fs';" +
    "registerHooks({ load(url, ctx, next) { process.stderr.write('loaded: ' + url + '\\n'); return next(url, ctx); } });" +
    'const read = fs.readFileSync; fs.readFileSync = function (file, ...rest) {' +
    "  if (typeof file === 'string' && file.endsWith('.cjs')) process.stderr.write('loaded: file://' + file + '\\n');" +
    '  return read.call(this, file, ...rest); };',
)}`;

let copy: string;

function sh(cmd: string, args: string[], cwd = copy) {
  return outputOf(spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] }));
}

function semaforo(args: string[], trace = false) {
  const db = path.join(copy, 'queue.db');
  return outputOf(
    spawn(
      process.execPath,
      [...(trace ? ['--import', TRACE] : []), path.join(copy, 'bin/semaforo.js'), ...args],
      {
        env: { ...process.env, SEMAFORO_DB: db, SEMAFORO_HOME: copy },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  );
}

const loaded = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('loaded: '))
    .map((l) => l.slice('loaded: '.length));

beforeAll(async () => {
  // Not tempDir(): that one is removed after each test, and the copy serves them all.
  copy = fs.mkdtempSync(path.join(os.tmpdir(), 'semaforo-launch-'));
  for (const dir of ['bin', 'build', 'electron', 'shared'])
    fs.cpSync(path.join(ROOT, dir), path.join(copy, dir), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(copy, 'package.json'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  const build = await sh(process.execPath, ['build/cli.ts']);
  expect(build.code, build.stderr).toBe(0);
}, 120_000);

afterAll(() => fs.rmSync(copy, { recursive: true, force: true }));

describe('the launcher', () => {
  it('runs the build while it is current: --version and --help load no command, schema or SQLite', async () => {
    for (const args of [['--version'], ['--help']]) {
      const r = await semaforo(args, true);
      expect(r.code, r.stderr).toBe(0);
      const urls = loaded(r.stderr);
      expect(urls.some((u) => /\/dist\/cli\/b[0-9a-z]+\/main\.cjs$/.test(u))).toBe(true);
      expect(urls.filter((u) => u.endsWith('.ts'))).toEqual([]);
      expect(urls.filter((u) => /zod|better-sqlite3|croner|schemas/.test(u))).toEqual([]);
      // Only the entry and its shared chunk: no command module.
      expect(urls.filter((u) => u.includes('/dist/cli/')).length).toBeLessThanOrEqual(2);
    }
    expect(fs.existsSync(path.join(copy, 'queue.db'))).toBe(false);
    // Chunks in ASCII alone: V8 keeps a source with any other character at two bytes a character.
    const stamp = JSON.parse(fs.readFileSync(path.join(copy, 'dist/cli/stamp.json'), 'utf8')) as {
      entry: string;
    };
    const dir = path.join(copy, 'dist/cli', path.dirname(stamp.entry));
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.cjs')))
      expect([f, /[\x80-\xff]/.test(fs.readFileSync(path.join(dir, f), 'latin1'))]).toEqual([f, false]);
    const v = await semaforo(['--version']);
    expect(v).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });

  it('runs the sources, never a stale build, once a source is edited; the next build is used again', async () => {
    const program = path.join(copy, 'electron/cli/program.ts');
    fs.writeFileSync(
      program,
      fs.readFileSync(program, 'utf8').replace(".version('0.1.0'", ".version('9.9.9'"),
    );
    const edited = await semaforo(['--version'], true);
    expect(edited.stdout).toBe('9.9.9\n');
    expect(loaded(edited.stderr).some((u) => u.endsWith('/electron/cli/main.ts'))).toBe(true);

    const build = await sh(process.execPath, ['build/cli.ts']);
    expect(build.code, build.stderr).toBe(0);
    const rebuilt = await semaforo(['--version'], true);
    expect(rebuilt.stdout).toBe('9.9.9\n');
    expect(loaded(rebuilt.stderr).filter((u) => u.endsWith('.ts'))).toEqual([]);

    // A module the build read but tree-shaking dropped still runs from the sources: it counts.
    const names = path.join(copy, 'shared/request-names.ts');
    const before = fs.readFileSync(names, 'utf8');
    fs.writeFileSync(names, `${before}\n`);
    expect(loaded((await semaforo(['--version'], true)).stderr).some((u) => u.endsWith('.ts'))).toBe(true);
    fs.writeFileSync(names, before);

    // A source edited while the build runs: that build is not used (nor is a stale one).
    const stamp = path.join(copy, 'dist/cli/stamp.json');
    const stampBefore = fs.readFileSync(stamp, 'utf8');
    const racing = setInterval(() => fs.utimesSync(program, new Date(), new Date()), 5);
    const raced = await sh(process.execPath, ['build/cli.ts']);
    clearInterval(racing);
    expect([raced.code, raced.stderr]).toEqual([1, expect.stringMatching(/changed while the CLI was built/)]);
    expect(fs.readFileSync(stamp, 'utf8')).toBe(stampBefore);
    expect(loaded((await semaforo(['--version'], true)).stderr).some((u) => u.endsWith('.ts'))).toBe(true);
    expect((await sh(process.execPath, ['build/cli.ts'])).code).toBe(0);
    // The build a running CLI began with stays in place through a rebuild.
    const builds = fs.readdirSync(path.join(copy, 'dist/cli')).filter((f) => /^b[0-9a-z]+$/.test(f));
    expect(builds.length).toBeGreaterThanOrEqual(2);
    expect(builds.length).toBeLessThanOrEqual(3);

    // A file the build took in is gone (moved away in the checkout): the sources again.
    fs.renameSync(path.join(copy, 'electron/cli/format.ts'), path.join(copy, 'format.ts.away'));
    const gone = await semaforo(['--version'], true);
    fs.renameSync(path.join(copy, 'format.ts.away'), path.join(copy, 'electron/cli/format.ts'));
    expect(loaded(gone.stderr).some((u) => u.endsWith('/electron/cli/main.ts'))).toBe(true);
  });

  it('the build enqueues and runs like the sources, loading only what the command needs', async () => {
    const e = await semaforo(['enqueue', '--', 'true'], true);
    expect(e.code, e.stderr).toBe(0);
    const urls = loaded(e.stderr);
    expect(urls.filter((u) => u.endsWith('.ts'))).toEqual([]);
    // A command's chunk is its name and an 8-character hash (schedule-times-… is shared code).
    expect(
      urls.filter((u) => /dist\/cli\/b[0-9a-z]+\/(serve|schedule|work|operate)-.{8}\.cjs$/.test(u)),
    ).toEqual([]);
    // A cron line's enqueue or run loads no schema library: the quick checks take its input.
    expect(urls.filter((u) => /zod|schemas/.test(u))).toEqual([]);
    // A look at `run --help` leaves no cache for `run`: it would be used, and kept, by every run.
    const stamp = JSON.parse(fs.readFileSync(path.join(copy, 'dist/cli/stamp.json'), 'utf8')) as {
      entry: string;
    };
    const v8 = path.join(copy, 'dist/cli', path.dirname(stamp.entry), 'v8');
    const runCaches = () => (fs.existsSync(v8) ? fs.readdirSync(v8) : []).filter((f) => f.includes('.run.'));
    expect((await semaforo(['run', '--help'])).code).toBe(0);
    expect(runCaches()).toEqual([]);
    const r = await semaforo(['run', '--', 'sh', '-c', 'echo ran; exit 3'], true);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('ran\n');
    expect(loaded(r.stderr).filter((u) => /zod|schemas/.test(u))).toEqual([]);
    // The entry, the engine chunk (the queue, the engine, enqueue and run) and Rolldown's runtime.
    expect(loaded(r.stderr).filter((u) => u.includes('/dist/cli/')).length).toBeLessThanOrEqual(3);
    expect(runCaches()).toEqual([]); // nor does a run that failed
    expect((await semaforo(['run', '--', 'true'])).code).toBe(0);
    expect(runCaches().length).toBeGreaterThan(0);
  });

  it("the build imports a user's handler modules (ES, TypeScript) and prints nothing else", async () => {
    const dir = path.join(copy, 'kinds');
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.writeFileSync(
      path.join(dir, 'hello.mjs'),
      "export default { kind: 'hello', description: 'says hi', run: () => 'hi' };\n",
    );
    fs.writeFileSync(
      path.join(dir, 'typed.ts'),
      "const kind: string = 'typed';\nexport default { kind, description: 'typed', run: () => 1 };\n",
    );
    const k = await semaforo(['--handlers', dir, 'kinds', '--json'], true);
    expect(k.code, k.stderr).toBe(0);
    expect(loaded(k.stderr).some((u) => /\/dist\/cli\/b[0-9a-z]+\/user-modules-.{8}\.cjs$/.test(u))).toBe(
      true,
    );
    // No ExperimentalWarning (nor anything else) beside the trace's own lines.
    expect(k.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('loaded: '))).toEqual([]);
    const out = JSON.parse(k.stdout) as { kinds: { kind: string; source: string }[]; loadErrors: unknown[] };
    expect(out.loadErrors).toEqual([]);
    expect(out.kinds.map((x) => x.kind)).toEqual(expect.arrayContaining(['hello', 'typed']));
  });
});

describe('the command table', () => {
  it('lists each command in the top-level help as its own definition would', async () => {
    const ctx = new CliContext(processIo());
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const cmd = await entry.load(ctx);
      expect(cmd.name()).toBe(name);
      expect(entry.term).toBe(new Help().subcommandTerm(cmd));
      expect(entry.summary).toBe(cmd.description());
    }
  });
});

describe('finding the command in argv', () => {
  it('skips global options and their values, and reads `help X` as X', () => {
    expect(commandNamed(['--db', 'run', 'enqueue', '--', 'true'])).toBe('enqueue');
    expect(commandNamed(['--db=x.db', '-v', '--json', 'show', '1'])).toBe('show');
    expect(commandNamed(['--handlers', 'd', 'help', 'run'])).toBe('run');
    expect(commandNamed(['--version'])).toBeUndefined();
    expect(commandNamed(['--', 'run'])).toBeUndefined();
  });
});
