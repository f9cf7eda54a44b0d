/**
 * Runs the CLI build (dist/cli/<id>/, CommonJS chunks) with V8 code caches made after a command
 * ran, not before: Node's own compile cache is written right after a module is compiled, so it
 * holds only the code V8 compiles eagerly, and every function a command calls is compiled again
 * at every start. Here each chunk is compiled as a script with the cache this command left last
 * time (one per chunk and command: `run` and `--version` call different functions), and once the
 * command ends well, a chunk that had no cache, or one V8 refused (another Node, another build),
 * gets a new one holding everything compiled so far. V8 checks a cache against the source and
 * its own version and flags, and refuses one that does not match; a cache that cannot be written
 * (a read-only install) is only a slower start.
 *
 * Plain JavaScript, like bin/semaforo.js: it runs before anything is known about the build.
 * CommonJS, like all of bin/ (bin/package.json): see bin/semaforo.js.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire } = require('node:module');
const { isAscii } = require('node:buffer');

/**
 * What a chunk calls for an `import()` whose specifier is not a literal (a user's handler module,
 * by its file URL; build/cli-format.ts renames it): a real ES import, made here, in a module. A
 * script's own `import()` would need vm's main-context loader, which Node 22 calls experimental
 * and warns about on stderr at each use.
 */
const DYNAMIC_IMPORT = '__semaforoDynamicImport';
const importModule = (specifier) => import(specifier);

/**
 * @param {string} cacheDir where the caches go (created on first write)
 * @param {string} key the command, as far as the cache's name goes
 */
function buildLoader(cacheDir, key) {
  const modules = new Map();
  /** Node's require, for what is not a chunk (made once: every chunk lies in the same folder) */
  let outer;
  /** @type {{ script: import('node:vm').Script, file: string }[]} */
  const uncached = [];

  // A code cache is code, and V8 checks little of one (its version, flags, the source's length):
  // so caches are written 0644 in a 0755 folder whatever the umask, and none is read from, or
  // written into, a folder or file that anyone but this user, root or the build's owner could
  // write. (Windows has no such mode bits: there, as before.)
  let dirTrusted;
  let owners;
  const trusted = (st) =>
    process.platform === 'win32' ||
    ((st.mode & 0o022) === 0 &&
      (owners ??= [process.getuid(), 0, fs.statSync(path.dirname(cacheDir)).uid]).includes(st.uid));
  /** Whether the cache folder may be used: true where it does not exist yet (it is made 0755). */
  function cachesTrusted() {
    if (dirTrusted === undefined) {
      const st = fs.statSync(cacheDir, { throwIfNoEntry: false });
      dirTrusted = st === undefined || (st.isDirectory() && trusted(st));
    }
    return dirTrusted;
  }

  function load(file) {
    const known = modules.get(file);
    if (known) return known.exports;
    const module = { exports: {} };
    modules.set(file, module);
    const dir = path.dirname(file);
    // Paths by concatenation, here and below: path.join normalises character by character, and
    // enough of that gets Node's path code optimised, which pages in V8's optimising compiler
    // into every waiting `run`.
    const source = textOf(fs.readFileSync(file));
    const cacheFile = `${cacheDir}${path.sep}${cacheName(file, key)}`;
    let cachedData;
    try {
      if (cachesTrusted() && trusted(fs.statSync(cacheFile))) cachedData = fs.readFileSync(cacheFile);
    } catch {
      // none yet
    }
    const script = new vm.Script(
      `(function (exports, require, module, __filename, __dirname, ${DYNAMIC_IMPORT}) {${source}\n})`,
      { filename: file, cachedData },
    );
    if (cachedData === undefined || script.cachedDataRejected) uncached.push({ script, file: cacheFile });
    // The build's own chunks come through here (each once, sharing their state); anything else
    // (a built-in, better-sqlite3's addon loader) is Node's.
    const require = (id) =>
      id.startsWith('./') ? load(`${dir}${path.sep}${id.slice(2)}`) : (outer ??= createRequire(file))(id);
    script.runInThisContext().call(module.exports, module.exports, require, module, file, dir, importModule);
    return module.exports;
  }

  /** Writes the caches that were missing or refused; each by a rename, so a reader sees a whole one. */
  function saveCaches() {
    for (const { script, file } of uncached.splice(0)) {
      const temp = `${file}.${process.pid}`;
      let made = false;
      try {
        if (!cachesTrusted()) return;
        fs.mkdirSync(cacheDir, { recursive: true, mode: 0o755 });
        // A new file only ('wx'): never through a link or into a file someone else made.
        const fd = fs.openSync(temp, 'wx', 0o644);
        made = true;
        try {
          fs.writeFileSync(fd, script.createCachedData());
          // On the disk before its name is: V8 does not checksum a cache, and one left half
          // written by a power cut would crash every start until removed.
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(temp, file);
      } catch {
        try {
          if (made) fs.rmSync(temp, { force: true });
        } catch {
          // nothing was written
        }
      }
    }
  }

  return { load, saveCaches };
}

/**
 * A chunk's text. The build writes them in ASCII (build/cli-format.ts), which reads as Latin-1
 * in a third of the time Node's UTF-8 read takes (0.4 against 1.2 ms for the engine chunk's
 * 424 KB); a chunk with any other byte is read as UTF-8, as before.
 */
function textOf(bytes) {
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/**
 * The name of `file`'s cache for command `key`. V8 checks a cache against the source's length
 * only, so the chunk's size and mtime are in it (a chunk edited in place does not run the code it
 * had); and it refuses one made under other flags, so they are too (a shell's NODE_OPTIONS and
 * cron's none do not rewrite each other's caches at every call).
 */
function cacheName(file, key) {
  const { size, mtimeMs } = fs.statSync(file);
  const base = file.slice(file.lastIndexOf(path.sep) + 1);
  return `${base}.${size}-${Math.trunc(mtimeMs)}.${safe(key)}.${process.version}-${process.arch}${(flags ??= flagsTag())}.v8`;
}
let flags;

/** Global options that take a value (as electron/cli/command-table.ts's VALUE_OPTIONS). */
const VALUE_OPTIONS = new Set(['--db', '--handlers']);

/** The command named in argv, for a file name: a word, or `-` for options alone. */
function commandKey(argv) {
  let word;
  for (let i = 0; i < argv.length && word === undefined; i++) {
    if (argv[i] === '--') break;
    if (VALUE_OPTIONS.has(argv[i])) i++;
    else if (!argv[i].startsWith('-')) word = argv[i];
  }
  return word !== undefined && /^[a-z][a-z-]{0,30}$/.test(word) ? word : '-';
}

/**
 * Whether a run of `argv` should leave its caches: not a call for a command's help (`run --help`),
 * which runs little of that command's code. A cache, once there and accepted, is not written
 * again: had the first `run` of a build been `run --help`, every `run` after it would compile
 * what it runs again at each start. (An option's value that reads `-h` only costs a cache
 * written by a later call.) For options alone (`-`) help is that key's usual work.
 */
function leavesCaches(argv) {
  if (commandKey(argv) === '-') return true;
  for (const arg of argv) {
    if (arg === '--') break;
    if (arg === '-h' || arg === '--help') return false;
  }
  return true;
}

/** `` with no V8 flags given, else `-` and a hash of them (FNV-1a, base 36). */
function flagsTag() {
  const flags = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`.trim();
  if (flags === '') return '';
  let h = 0x811c9dc5;
  for (let i = 0; i < flags.length; i++) h = Math.imul(h ^ flags.charCodeAt(i), 0x01000193);
  return `-${(h >>> 0).toString(36)}`;
}

function safe(key) {
  return /^[a-z-]{1,31}$/.test(key) ? key : '-';
}

module.exports = { DYNAMIC_IMPORT, buildLoader, cacheName, commandKey, leavesCaches };
