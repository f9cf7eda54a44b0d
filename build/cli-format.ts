/**
 * The CLI build's module format: CommonJS chunks, which bin/cli-loader.js compiles itself with
 * code caches made after a command ran (Node's ES module loader caches only what V8 compiled
 * before the module ran). A chunk's lazy `import('./chunk')` becomes a `require` the loader
 * serves, so each chunk is loaded once and shares its state.
 *
 * An `import()` whose specifier is not a literal (a user's handler module, by its file URL) must
 * stay a real ES import: Rolldown would turn it into a `require` of a URL. It is hidden from
 * Rolldown under another name while bundling and named `import` again in the output; the loader
 * compiles chunks with Node's default loader for such imports.
 */
import type { Plugin } from 'vite';

const HIDDEN = '__semaforoDynamicImport';

export const cliOutputFormat = {
  format: 'cjs',
  dynamicImportInCjs: false,
  entryFileNames: '[name].cjs',
  chunkFileNames: '[name]-[hash].cjs',
  // Plain ASCII (other characters escaped; asciiComments() does the comments): V8 then holds
  // each chunk's source in one byte a character, not two, for as long as the process runs.
  charset: 'ascii',
} as const;

export function realDynamicImports(): Plugin {
  return {
    name: 'semaforo:real-dynamic-imports',
    transform(code, id) {
      if (id.includes('/node_modules/') || !/\bimport\(\s*[^'"`\s)]/.test(code)) return null;
      return { code: code.replace(/\bimport\((?=\s*[^'"`\s)])/g, `${HIDDEN}(`), map: null };
    },
    renderChunk(code) {
      if (!code.includes(HIDDEN)) return null;
      return { code: code.replaceAll(`${HIDDEN}(`, 'import('), map: null };
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
