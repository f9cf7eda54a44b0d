/**
 * bin/cli-loader.js: the CLI build's chunks run as CommonJS, each loaded once, with a V8 code
 * cache per chunk and command written after the command ran and used by the next start; a
 * cache V8 refuses is replaced, and one that cannot be written costs nothing but speed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { buildLoader, cacheName, commandKey, DYNAMIC_IMPORT, leavesCaches } from '../../bin/cli-loader.js';
import { tempDir } from '../helpers.ts';

function writeBuild(dir: string): string {
  fs.writeFileSync(
    path.join(dir, 'main.cjs'),
    [
      'const shared = require("./shared.cjs");',
      'const os = require("node:os");',
      'exports.main = () => shared.count() + shared.count() + (typeof os.cpus === "function" ? 100 : 0);',
      'exports.lazy = () => Promise.resolve().then(() => require("./lazy.cjs")).then((m) => m.value());',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(dir, 'shared.cjs'),
    'let n = 0; exports.count = () => ++n; exports.where = () => __dirname;',
  );
  // A chunk that requires one already loading gets its exports so far, as CommonJS would.
  fs.writeFileSync(
    path.join(dir, 'lazy.cjs'),
    'const shared = require("./shared.cjs"); exports.value = () => shared.count() * 10;',
  );
  return path.join(dir, 'main.cjs');
}

const caches = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);
const inode = (file: string) => fs.statSync(file).ino;

describe('the CLI build loader', () => {
  it('loads each chunk once, resolves built-ins through Node, and passes CommonJS names', async () => {
    const dir = tempDir();
    const entry = writeBuild(dir);
    const loader = buildLoader(path.join(dir, 'v8'), 'run');
    const main = loader.load(entry) as { main(): number; lazy(): Promise<number> };
    expect(main.main()).toBe(103);
    expect(await main.lazy()).toBe(30); // the same `shared`, its count now 3
    expect((loader.load(path.join(dir, 'shared.cjs')) as { where(): string }).where()).toBe(dir);
  });

  it('reads a chunk in UTF-8 where it is not all ASCII (the build writes ASCII)', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'text.cjs'), 'exports.text = "semáforo \u{1f6a6}"; // ¿qué?');
    const text = buildLoader(path.join(dir, 'v8'), 'run').load(path.join(dir, 'text.cjs'));
    expect((text as { text: string }).text).toBe('semáforo \u{1f6a6}');
  });

  it('writes a cache per chunk and command after the run, and the next start uses it', async () => {
    const dir = tempDir();
    const entry = writeBuild(dir);
    const cacheDir = path.join(dir, 'v8');
    const first = buildLoader(cacheDir, 'run');
    const main = first.load(entry) as { main(): number; lazy(): Promise<number> };
    main.main();
    await main.lazy();
    expect(caches(cacheDir)).toEqual([]); // nothing before the command is over
    first.saveCaches();
    const named = (chunk: string, key = 'run') => cacheName(path.join(dir, chunk), key);
    expect(caches(cacheDir)).toEqual([named('lazy.cjs'), named('main.cjs'), named('shared.cjs')]);
    expect(named('main.cjs')).toMatch(new RegExp(`^main\\.cjs\\.\\d+-\\d+\\.run\\.${process.version}-`));
    const before = caches(cacheDir).map((f) => inode(path.join(cacheDir, f)));

    // Accepted by V8: nothing to write again.
    const second = buildLoader(cacheDir, 'run');
    expect((second.load(entry) as { main(): number }).main()).toBe(103);
    second.saveCaches();
    expect(caches(cacheDir).map((f) => inode(path.join(cacheDir, f)))).toEqual(before);

    // Another command keeps caches of its own.
    const other = buildLoader(cacheDir, '-');
    other.load(entry);
    other.saveCaches();
    expect(caches(cacheDir).filter((f) => f.includes('.-.'))).toEqual([
      named('main.cjs', '-'),
      named('shared.cjs', '-'),
    ]);

    // A chunk edited in place to the same length gets a cache of its own, not the old code's.
    const was = fs.statSync(entry).mtime;
    fs.writeFileSync(entry, fs.readFileSync(entry, 'utf8').replace('? 100 : 0', '? 200 : 0'));
    fs.utimesSync(entry, was, new Date(was.getTime() + 5000));
    const edited = buildLoader(cacheDir, 'run');
    expect((edited.load(entry) as { main(): number }).main()).toBe(203);
  });

  it('keeps one cache per set of V8 flags, so alternating flags do not rewrite each other', () => {
    const dir = tempDir();
    writeBuild(dir);
    const plain = cacheName(path.join(dir, 'main.cjs'), 'run');
    const child = (env: Record<string, string>) =>
      execFileSync(
        process.execPath,
        [
          '-e',
          `import(${JSON.stringify(pathToFileURL(path.resolve('bin/cli-loader.js')).href)}).then((l) => process.stdout.write(l.cacheName(${JSON.stringify(path.join(dir, 'main.cjs'))}, 'run')))`,
        ],
        { env: { ...process.env, NODE_OPTIONS: '', ...env }, encoding: 'utf8' },
      );
    const none = child({});
    const bigger = child({ NODE_OPTIONS: '--max-old-space-size=200' });
    expect(none).not.toBe(bigger);
    expect(child({ NODE_OPTIONS: '--max-old-space-size=200' })).toBe(bigger);
    expect(plain.startsWith('main.cjs.')).toBe(true);
  });

  it('replaces a cache V8 refuses (another build, a damaged file), and runs all the same', () => {
    const dir = tempDir();
    const entry = writeBuild(dir);
    const cacheDir = path.join(dir, 'v8');
    const tagged = path.join(cacheDir, cacheName(entry, 'run'));
    fs.mkdirSync(cacheDir);
    fs.writeFileSync(tagged, Buffer.alloc(512, 7));
    const loader = buildLoader(cacheDir, 'run');
    expect((loader.load(entry) as { main(): number }).main()).toBe(103);
    loader.saveCaches();
    expect(fs.readFileSync(tagged).equals(Buffer.alloc(512, 7))).toBe(false);
    expect(fs.statSync(tagged).size).toBeGreaterThan(0);
  });

  it('goes on without a cache where none can be written', () => {
    const dir = tempDir();
    const entry = writeBuild(dir);
    const blocked = path.join(dir, 'v8');
    fs.writeFileSync(blocked, 'a file where the folder would go');
    const loader = buildLoader(blocked, 'run');
    expect((loader.load(entry) as { main(): number }).main()).toBe(103);
    expect(() => loader.saveCaches()).not.toThrow();
    expect(fs.readdirSync(dir).sort()).toEqual(['lazy.cjs', 'main.cjs', 'shared.cjs', 'v8']);
  });

  it('writes caches 0644 in a 0755 folder whatever the umask, never through a link', () => {
    const dir = tempDir();
    const entry = writeBuild(dir);
    const cacheDir = path.join(dir, 'v8');
    const was = process.umask(0);
    try {
      const loader = buildLoader(cacheDir, 'run');
      loader.load(entry);
      loader.saveCaches();
    } finally {
      process.umask(was);
    }
    expect(fs.statSync(cacheDir).mode & 0o777).toBe(0o755);
    for (const f of caches(cacheDir))
      expect([f, fs.statSync(path.join(cacheDir, f)).mode & 0o777]).toEqual([f, 0o644]);

    // A link where this process would write its temporary file: left alone, its target untouched.
    fs.rmSync(cacheDir, { recursive: true });
    fs.mkdirSync(cacheDir);
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'mine');
    const link = path.join(cacheDir, `${cacheName(entry, 'run')}.${process.pid}`);
    fs.symlinkSync(victim, link);
    const loader = buildLoader(cacheDir, 'run');
    loader.load(entry);
    loader.saveCaches();
    expect(fs.readFileSync(victim, 'utf8')).toBe('mine');
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('reads no cache from a folder or a file others can write: V8 would run what it holds', () => {
    // V8 checks a cache against the source's length alone: one made from another source of the
    // same length runs that source's code.
    const theirs = tempDir();
    fs.writeFileSync(path.join(theirs, 'main.cjs'), 'exports.who = "it";');
    const made = buildLoader(path.join(theirs, 'v8'), 'run');
    made.load(path.join(theirs, 'main.cjs'));
    made.saveCaches();

    // Each in a folder of its own: V8 keeps what it compiled by source and file name.
    const who = (dirMode: number, fileMode: number) => {
      const mine = tempDir();
      fs.writeFileSync(path.join(mine, 'main.cjs'), 'exports.who = "me";');
      // Their cache under the name mine would have: its size and mtime are anyone's to read.
      const name = cacheName(path.join(mine, 'main.cjs'), 'run');
      const cacheDir = path.join(mine, 'v8');
      fs.mkdirSync(cacheDir);
      fs.copyFileSync(
        path.join(theirs, 'v8', cacheName(path.join(theirs, 'main.cjs'), 'run')),
        path.join(cacheDir, name),
      );
      fs.chmodSync(path.join(cacheDir, name), fileMode);
      fs.chmodSync(cacheDir, dirMode);
      const loader = buildLoader(cacheDir, 'run');
      const { who } = loader.load(path.join(mine, 'main.cjs')) as { who: string };
      // Nor is anything written there.
      fs.rmSync(path.join(cacheDir, name));
      loader.saveCaches();
      return [who, caches(cacheDir).length];
    };
    expect(who(0o755, 0o644)).toEqual(['it', 0]); // where only its owner could have put it
    expect(who(0o777, 0o644)).toEqual(['me', 0]);
    expect(who(0o1777, 0o644)).toEqual(['me', 0]);
    expect(who(0o775, 0o644)).toEqual(['me', 0]);
    expect(who(0o755, 0o666)).toEqual(['me', 1]); // the folder is its owner's: a new one goes in
  });

  it("gives a chunk a real ES import for a module by its URL (a user's handler module)", async () => {
    const dir = tempDir();
    const mod = pathToFileURL(path.join(dir, 'mod.mjs')).href;
    fs.writeFileSync(path.join(dir, 'mod.mjs'), 'export const url = import.meta.url;');
    fs.writeFileSync(path.join(dir, 'main.cjs'), `exports.load = (url) => ${DYNAMIC_IMPORT}(url);`);
    const main = buildLoader(path.join(dir, 'v8'), 'run').load(path.join(dir, 'main.cjs')) as {
      load(url: string): Promise<{ url: string }>;
    };
    expect((await main.load(mod)).url).toBe(mod);
  });

  it('names the cache after the command word, or `-`', () => {
    expect(commandKey(['run', '--', 'true'])).toBe('run');
    expect(commandKey(['--version'])).toBe('-');
    expect(commandKey(['--db', '/tmp/q.db', 'list'])).toBe('list');
    expect(commandKey(['--handlers', 'hd', 'list'])).toBe('list');
    expect(commandKey(['--', 'list'])).toBe('-');
    expect(commandKey(['group', 'set', 'x'])).toBe('group');
    expect(commandKey(['../../etc'])).toBe('-');
  });

  it("leaves no cache after a command's --help, which runs little of the command", () => {
    expect(leavesCaches(['run', '--', 'true'])).toBe(true);
    expect(leavesCaches(['run', '--help'])).toBe(false);
    expect(leavesCaches(['-v', 'enqueue', '-h'])).toBe(false);
    expect(leavesCaches(['run', '--', 'grep', '-h', 'x'])).toBe(true);
    // Options alone: help and the version are that key's work.
    expect(leavesCaches(['--help'])).toBe(true);
    expect(leavesCaches(['--version'])).toBe(true);
  });
});
