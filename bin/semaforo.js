#!/usr/bin/env node
// The `semaforo` launcher. Kept in plain JavaScript so it can say clearly when Node is too old,
// and so a start needs no TypeScript: it runs the build in dist/cli (made by `npm install`, or
// `npm run build:cli`) while that build matches the sources, else the sources themselves.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `semaforo: needs Node.js 22.12 or newer, this is ${process.version}. ` +
      "Install the launcher that uses the project's own Node (`npx semaforo install-cli`), or run it through npx.\n",
  );
  process.exit(1);
}

// CommonJS (bin/package.json), not an ES module: Node's ES module loader (ten internal modules,
// and its asynchronous steps for this file and the loader's) cost every start 3-6 ms of CPU
// (test/bench/RESULTS.md, section 8, eighth pass).
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(__dirname, '..');

/**
 * The built entry, if it is current: dist/cli/stamp.json lists each source file bundled in
 * with its mtime when built, and one that now differs, or is gone, means the checkout was
 * edited since (a stat per file: well under a millisecond). Where there are no sources (a
 * package holding only dist/), the build is all there is.
 */
function currentBuild() {
  const dir = path.join(root, 'dist', 'cli');
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(path.join(dir, 'stamp.json'), 'utf8'));
  } catch {
    return null;
  }
  if (!stamp.entry.endsWith('.cjs')) return null; // an ES module build of before, for another launcher
  const entry = path.join(dir, stamp.entry);
  if (!fs.existsSync(path.join(root, 'electron', 'cli', 'main.ts'))) return entry;
  // Plain concatenation: path.join's normalising of 200 paths was 4 ms of a start.
  const prefix = root + path.sep;
  for (const [rel, mtimeMs] of Object.entries(stamp.files)) {
    const st = fs.statSync(prefix + rel, { throwIfNoEntry: false });
    if (st?.mtimeMs !== mtimeMs) return null;
  }
  return entry;
}

async function start() {
  const built = currentBuild();
  if (built) {
    const { buildLoader, commandKey, leavesCaches } = require('./cli-loader.js');
    const argv = process.argv.slice(2);
    const loader = buildLoader(path.join(path.dirname(built), 'v8'), commandKey(argv));
    await loader.load(built).main();
    // What this command compiled, kept for its next start (only after a run that went well, and
    // not after a command's --help, so neither a mistyped first call nor a look at the help
    // leaves a cache of the wrong code).
    if (!process.exitCode && leavesCaches(argv)) loader.saveCaches();
  } else {
    process.removeAllListeners('warning'); // Node's "type stripping is experimental" notice is not for users
    const { pathToFileURL } = require('node:url');
    const { main } = await import(pathToFileURL(path.join(root, 'electron', 'cli', 'main.ts')).href);
    await main();
  }
  // The command is over and its queue closed: all Node would still do is tear its heap down and run
  // its cleanup hooks, time every cron line pays for nothing. Exit now, unless output is still
  // buffered for a slow reader (pipes are written asynchronously on macOS): then drain and end as usual.
  // (After a turn, so that a write's error, such as EPIPE from a reader gone, has set its exit code.)
  setImmediate(() => {
    if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit();
  });
}

// A failure ends the process as an uncaught exception would (its stack on stderr, status 1), as
// the top-level await of the ES module did.
start().catch((err) => {
  process.nextTick(() => {
    throw err;
  });
});
