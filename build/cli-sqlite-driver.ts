/**
 * The CLI build's better-sqlite3: its JavaScript (the Database class, its methods, SqliteError)
 * bundled into the chunk that opens the queue, instead of thirteen CommonJS files that Node
 * resolves, reads and wraps one by one at every start of a command that opens the queue. Only
 * its addon loader stays in node_modules (lib/binding.js finds the compiled addon next to
 * itself: a build of its own, else the prebuilt one), required from there at run time.
 *
 * This uses better-sqlite3's inner layout (lib/database.js exports the factory that
 * lib/index.js calls with that loader); the build checks it is still there, and package-lock.json
 * in the stamp makes a build stale when the package changes. The sources keep
 * electron/core/store/sqlite/driver.ts as it is.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'vite';

export function bundledSqliteDriver(root: string, outDir: string): Plugin {
  const driver = path.join(root, 'electron/core/store/sqlite/driver.ts');
  const lib = path.dirname(createRequire(path.join(root, 'package.json')).resolve('better-sqlite3'));
  const index = fs.readFileSync(path.join(lib, 'index.js'), 'utf8');
  if (!/require\('\.\/database'\)\(require\('\.\/binding'\)\.getBinding, true\)/.test(index))
    throw new Error(
      `${lib}/index.js no longer builds the Database as this build expects; update ${import.meta.filename}`,
    );
  // The loader where the project's own node_modules holds it, relative to the chunks: a checkout
  // moved as a whole keeps it there. Node's lookup of the package (node_modules folders, its
  // package.json and exports map, a realpath) costs a start ~1 ms; it stays the fallback.
  const own = path.join(root, 'node_modules/better-sqlite3/lib/binding.js');
  const near = fs.existsSync(own) ? path.relative(outDir, own).split(path.sep).join('/') : null;
  return {
    name: 'semaforo:bundled-sqlite-driver',
    enforce: 'pre',
    load(id) {
      if (id.split('?')[0] !== driver) return null;
      return [
        `import { createRequire } from 'node:module';`,
        `import createDatabase from ${JSON.stringify(path.join(lib, 'database.js'))};`,
        `import SqliteError from ${JSON.stringify(path.join(lib, 'sqlite-error.js'))};`,
        `const require = createRequire(import.meta.url);`,
        `function loadBinding() {`,
        ...(near === null
          ? []
          : [
              `  try {`,
              `    return require(${JSON.stringify(near)});`,
              `  } catch (err) {`,
              `    if (err?.code !== 'MODULE_NOT_FOUND') throw err;`,
              `  }`,
            ]),
        `  return require(require.resolve('better-sqlite3').replace(/index\\.js$/, '') + 'binding.js');`,
        `}`,
        `export const Database = createDatabase(loadBinding().getBinding, true);`,
        `Database.SqliteError = SqliteError;`,
      ].join('\n');
    },
  };
}
