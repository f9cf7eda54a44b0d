/**
 * Builds the `semaforo` command line into dist/cli: one CommonJS chunk per lazily loaded
 * command (Vite's SSR build, i.e. Rolldown), which bin/cli-loader.js runs (cli-format.ts says
 * why not ES modules), better-sqlite3 left to node_modules (a native addon). Run at
 * `npm install` and `npm ci` (the `prepare` script) and by `npm run build:cli`.
 *
 * Next to it, dist/cli/stamp.json lists every source file that went in with its mtime;
 * bin/semaforo.js runs the bundle only while each of them still has that mtime, so an edited
 * checkout runs its sources, never a stale build:
 * - every module the build read counts, also one tree-shaking then dropped (its side effects
 *   still run from the sources), with its mtime taken when the build read it; one edited before
 *   the build ended gets no stamp at all;
 * - each build goes to a folder of its own (dist/cli/<id>/) and the stamp, written last by a
 *   rename, names it: a CLI starting, or a long-running worker loading a command's chunk, during
 *   a rebuild still finds the build it began with. The newest three are kept.
 */
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { build as viteBuild, Plugin } from 'vite';
import { engineChunk } from './cli-chunks.ts';
import { asciiComments, cliOutputFormat, realDynamicImports } from './cli-format.ts';
import { bundledSqliteDriver } from './cli-sqlite-driver.ts';

// `npm install` runs this as `prepare`; an install without devDependencies has no Vite, and then
// the CLI runs from its sources (slower to start) rather than the install failing.
let build: typeof viteBuild;
try {
  ({ build } = await import('vite'));
} catch (err) {
  if (!process.argv.includes('--if-possible')) throw err;
  process.stdout.write(
    'semaforo: Vite is not installed, so the CLI is not built and runs from its sources\n',
  );
  process.exit(0);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cliDir = path.join(root, 'dist/cli');
const buildId = `b${Date.now().toString(36)}${process.pid.toString(36)}`;
const outDir = path.join(cliDir, buildId);
const KEEP_BUILDS = 3;

/** Each source module the build reads, with its mtime then (before it could be edited again). */
function sourcesRead(seen: Map<string, number | null>): Plugin {
  return {
    name: 'semaforo:sources-read',
    enforce: 'pre',
    load(id) {
      const file = id.split('?')[0]!;
      if (path.isAbsolute(file) && !file.includes(`${path.sep}node_modules${path.sep}`) && !seen.has(file))
        seen.set(file, fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? null);
      return null;
    },
  };
}

/**
 * Node's built-in modules taken with `process.getBuiltinModule`, not `import`: an ES import of a
 * built-in makes Node build a module facade that reads every export, and so runs the lazy
 * getters behind them (`fs.promises` loads fs/promises, readline and the streams; `node:process`
 * loads the diagnostic report and worker_threads; `node:util` parseArgs and its diff): some 50
 * internal modules compiled at every start that no command uses. Each importer gets a stand-in
 * that reads only the names it imports.
 */
function builtinsWithoutFacades(): Plugin {
  const PREFIX = '\0builtin:';
  return {
    name: 'semaforo:builtins-without-facades',
    enforce: 'pre',
    // One stand-in per importing module: it reads that module's names, and lands in its chunk.
    // A dynamic import keeps Node's own namespace (it may use any name), paid only when it runs.
    resolveId(id, importer, options) {
      // (Rolldown's own runtime, a virtual module, keeps its plain import.)
      if (!isBuiltin(id) || !importer || importer.startsWith('\0')) return null;
      if ((options as { kind?: string }).kind !== 'import-statement') return null;
      return `${PREFIX}${id.startsWith('node:') ? id : `node:${id}`}?${importer}`;
    },
    load(id) {
      if (!id.startsWith(PREFIX)) return null;
      const q = id.indexOf('?');
      const name = id.slice(PREFIX.length, q);
      const code = this.getModuleInfo(id.slice(q + 1))?.code ?? '';
      const bare = name.slice('node:'.length);
      const from = `(?:node:)?${bare.replace(/[/]/g, '\\/')}`;
      const names = new Set<string>();
      for (const m of code.matchAll(
        new RegExp(`import\\s+(?:[\\w$]+\\s*,\\s*)?\\{([^}]*)\\}\\s*from\\s*['"]${from}['"]`, 'g'),
      ))
        for (const spec of m[1]!.split(',')) {
          const imported = spec
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]!;
          if (/^[A-Za-z_$][\w$]*$/.test(imported) && imported !== 'default') names.add(imported);
        }
      if (new RegExp(`import\\s*\\*\\s*as\\s+[\\w$]+\\s+from\\s*['"]${from}['"]`).test(code))
        this.error(
          `${id.slice(q + 1)}: the CLI build takes no \`import * as\` of ${name}; import its default`,
        );
      return (
        `const m = process.getBuiltinModule(${JSON.stringify(name)});\nexport default m;\n` +
        (names.size ? `export const { ${[...names].join(', ')} } = m;\n` : '')
      );
    },
  };
}

const started = performance.now();
const read = new Map<string, number | null>();
const entry = path.join(root, 'electron/cli/main.ts');
const engine = engineChunk(root, entry);
await build({
  root,
  configFile: false,
  logLevel: 'warn',
  publicDir: false,
  plugins: [
    sourcesRead(read),
    bundledSqliteDriver(root, outDir),
    builtinsWithoutFacades(),
    realDynamicImports(),
    asciiComments(),
    engine.plugin,
  ],
  build: {
    ssr: entry,
    outDir,
    emptyOutDir: true,
    target: 'node22',
    minify: false,
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: {
      output: {
        ...cliOutputFormat,
        codeSplitting: { groups: [engine.group] },
      },
    },
  },
  // Everything but the native addon's loader is bundled (cli-sqlite-driver.ts): fewer files to
  // find and read at every start.
  ssr: { noExternal: true, external: ['better-sqlite3'], target: 'node' },
});

// The format bin/semaforo.js reads: paths relative to the root, mtimes in milliseconds. With
// them this script, the package and lock files and the TypeScript settings: a changed recipe or
// dependency (bundled in too) also makes the build stale until the next `npm install`.
const files: Record<string, number> = {};
const changed: string[] = [];
for (const [file, mtimeMs] of read) {
  const now = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? null;
  if (now !== mtimeMs) changed.push(path.relative(root, file));
  else if (mtimeMs !== null) files[path.relative(root, file)] = mtimeMs;
}
for (const rel of [
  'build/cli.ts',
  'build/cli-format.ts',
  'build/cli-sqlite-driver.ts',
  'build/cli-chunks.ts',
  'bin/cli-loader.js', // names what a chunk calls for a user's module
  'package.json',
  'package-lock.json',
  'tsconfig.json',
]) {
  const st = fs.statSync(path.join(root, rel), { throwIfNoEntry: false });
  if (st) files[rel] = st.mtimeMs;
}
if (changed.length > 0) {
  fs.rmSync(outDir, { recursive: true, force: true });
  process.stderr.write(
    `semaforo: ${changed[0]}${changed.length > 1 ? ` and ${changed.length - 1} more` : ''} changed while the CLI ` +
      'was built, so this build is not used (run `npm run build:cli` again); the CLI runs from its sources\n',
  );
  process.exit(process.argv.includes('--if-possible') ? 0 : 1);
}
const stampFile = path.join(cliDir, 'stamp.json');
fs.writeFileSync(`${stampFile}.${buildId}`, JSON.stringify({ entry: `${buildId}/main.cjs`, files }));
fs.renameSync(`${stampFile}.${buildId}`, stampFile);
// Older builds beyond the newest few go; so do the files of the layout before build folders.
for (const old of fs
  .readdirSync(cliDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && /^b[0-9a-z]+$/.test(e.name))
  .map((e) => ({ name: e.name, at: fs.statSync(path.join(cliDir, e.name)).mtimeMs }))
  .sort((a, b) => b.at - a.at)
  .slice(KEEP_BUILDS))
  fs.rmSync(path.join(cliDir, old.name), { recursive: true, force: true });
for (const e of fs.readdirSync(cliDir, { withFileTypes: true }))
  if (e.isFile() && e.name.endsWith('.js')) fs.rmSync(path.join(cliDir, e.name), { force: true });
process.stdout.write(
  `built the CLI into dist/cli/${buildId} (${Object.keys(files).length} sources) in ${Math.round(performance.now() - started)} ms\n`,
);
