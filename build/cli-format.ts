/**
 * The CLI build's module format: CommonJS chunks, which bin/cli-loader.js compiles itself with
 * code caches made after a command ran (Node's ES module loader caches only what V8 compiled
 * before the module ran). A chunk's lazy `import('./chunk')` becomes a `require` the loader
 * serves, so each chunk is loaded once and shares its state.
 *
 * An `import()` whose specifier is not a literal (a user's handler module, by its file URL) must
 * stay a real ES import: Rolldown would turn it into a `require` of a URL. It is renamed to a
 * function the loader passes each chunk, which imports from the loader's own module: kept as
 * `import()` in a chunk, it would need vm's main-context loader, experimental in Node 22, which
 * prints a warning at each use. The renaming is textual (the project's own sources only), so
 * `import(` followed by anything but a quote must not appear in a string or comment there.
 */
import type { Plugin } from 'vite';
import { DYNAMIC_IMPORT } from '../bin/cli-loader.js';

export const cliOutputFormat = {
  format: 'cjs',
  dynamicImportInCjs: false,
  entryFileNames: '[name].cjs',
  chunkFileNames: '[name]-[hash].cjs',
  // Plain ASCII (other characters escaped; asciiComments() does the comments): V8 then holds
  // each chunk's source in one byte a character, not two, for as long as the process runs.
  charset: 'ascii',
} as const;

/** `import(` not after a dot (a method of that name) and not before a quote (a chunk of ours). */
const NON_LITERAL = /(?<![.\w$])import\((?=\s*[^'"`\s)])/;

export function realDynamicImports(): Plugin {
  return {
    name: 'semaforo:real-dynamic-imports',
    transform(code, id) {
      if (id.includes('/node_modules/') || !NON_LITERAL.test(code)) return null;
      return { code: code.replace(new RegExp(NON_LITERAL, 'g'), `${DYNAMIC_IMPORT}(`), map: null };
    },
  };
}

/**
 * What `charset: 'ascii'` leaves: characters in comments (an ellipsis, an arrow), written as
 * `\u{...}` there too; one of them would make V8 hold the whole chunk's source in two bytes a
 * character.
 */
export function asciiComments(): Plugin {
  return {
    name: 'semaforo:ascii-comments',
    renderChunk(code) {
      if (!/[\u0080-\u{10ffff}]/u.test(code)) return null;
      return {
        code: code.replace(/[\u0080-\u{10ffff}]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`),
        map: null,
      };
    },
  };
}
