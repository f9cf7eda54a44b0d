/**
 * Builds the `semaforo` command line into dist/cli: one ES module bundle per lazily loaded
 * command (Vite's SSR build, i.e. Rolldown), better-sqlite3 left to node_modules (a native
 * addon). Run by `npm run build:cli` (not at install: see the README).
 *
 * Next to it, dist/cli/stamp.json lists every source file that went in with its mtime;
 * bin/semaforo.js runs the bundle only while each of them still has that mtime, so an edited
 * checkout runs its sources, never a stale build.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Rollup } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'dist/cli');

const started = performance.now();
const result = await build({
  root,
  configFile: false,
  logLevel: 'warn',
  publicDir: false,
  build: {
    ssr: path.join(root, 'electron/cli/main.ts'),
    outDir,
    emptyOutDir: true,
    target: 'node22',
    minify: false,
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: { output: { entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' } },
  },
  // Everything but the native addon is bundled: fewer files to find and read at every start.
  ssr: { noExternal: true, external: ['better-sqlite3'], target: 'node' },
});

const outputs = (Array.isArray(result) ? result : [result]) as Rollup.RollupOutput[];
const sources = new Set<string>();
for (const out of outputs)
  for (const chunk of out.output)
    if (chunk.type === 'chunk')
      for (const id of chunk.moduleIds) {
        const file = id.split('?')[0]!;
        if (path.isAbsolute(file) && !file.includes(`${path.sep}node_modules${path.sep}`))
          sources.add(path.relative(root, file));
      }
// The format bin/semaforo.js reads: paths relative to the root, mtimes in milliseconds.
const files: Record<string, number> = {};
for (const rel of [...sources].sort()) files[rel] = fs.statSync(path.join(root, rel)).mtimeMs;
fs.writeFileSync(path.join(outDir, 'stamp.json'), JSON.stringify({ entry: 'main.js', files }));
process.stdout.write(
  `built the CLI into dist/cli (${sources.size} sources) in ${Math.round(performance.now() - started)} ms\n`,
);
