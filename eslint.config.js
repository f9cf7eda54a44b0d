// Lint rules, including the layering described in docs/ARCHITECTURE.md ("Layers"): each folder may
// import only what can run where that folder's code runs, and only the store factory reaches a
// backend. Not type-aware, so it stays fast.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// `fs`, `fs/promises`, `node:test`, ... (the `node:` prefix is matched separately).
const builtins = builtinModules.filter((name) => !name.startsWith('_') && !name.startsWith('node:'));
const escape = (name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
// A package name, or anything below it (`react-dom/client`), but not a local folder of that name.
const pkg = (...names) => `^(${names.map(escape).join('|')})(/.*)?$`;

const noNode = {
  regex: `^node:|${pkg(...builtins)}`,
  message: 'this layer runs in a browser: no Node built-ins',
};
const noElectron = {
  regex: pkg('electron'),
  message: 'only electron/main and electron/preload may use electron',
};
const noReact = { regex: pkg('react', 'react-dom'), message: 'React belongs to renderer/' };
const noSqlite = { regex: pkg('better-sqlite3'), message: 'only the engine (electron/core) opens SQLite' };
const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
// A backend is reached only through the TaskStore contract, opened by store/open-store.ts.
const noBackend = {
  group: ['**/store/sqlite', '**/store/sqlite/**', '**/sqlite/*', './sqlite/**'],
  message:
    'only electron/core/store/open-store.ts opens a backend; use the TaskStore contract (docs/ARCHITECTURE.md)',
};
const coreFaces = {
  group: [
    '**/renderer/**',
    '**/electron/main/**',
    '**/electron/preload/**',
    '**/electron/server/**',
    '**/electron/cli/**',
  ],
  message: 'the engine must not depend on its faces',
};

export default defineConfig(
  { ignores: ['node_modules/', 'dist/', 'out/', 'coverage/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
    },
  },
  // bin/ is CommonJS (bin/package.json: its launcher starts faster without the ES module loader).
  {
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['shared/**'],
    rules: restrict(noNode, noElectron, noReact, noSqlite, {
      group: ['**/electron', '**/electron/**', '**/renderer', '**/renderer/**'],
      message: 'shared/ imports nothing but itself (and a schema library)',
    }),
  },
  { files: ['electron/core/**'], rules: restrict(noElectron, noReact, coreFaces, noBackend) },
  // electron/core/engine.ts can reach electron/main as `../main/...`, which the `**/electron/main/**`
  // pattern cannot see: for each folder depth, the climb that leaves core is blocked too. (Flat config
  // replaces rule options instead of merging them, so each block repeats the whole list.)
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((depth) => ({
    files: [`electron/core/${'*/'.repeat(depth)}*`],
    rules: restrict(noElectron, noReact, coreFaces, noBackend, {
      regex: `^(\\.\\./){${depth + 1}}(main|preload|server|cli)(/|$)`,
      message: 'the engine must not depend on its faces',
    }),
  })),
  // The backend's own folder, the factory that opens it, and the copier between backends
  // (`semaforo migrate`) may import it (same depth rules).
  ...[
    ['electron/core/store/open-store.ts', 1],
    ['electron/core/store/copy-queue.ts', 1],
    ['electron/core/store/sqlite/*', 2],
  ].map(([files, depth]) => ({
    files: [files],
    rules: restrict(noElectron, noReact, coreFaces, {
      regex: `^(\\.\\./){${depth + 1}}(main|preload|server|cli)(/|$)`,
      message: 'the engine must not depend on its faces',
    }),
  })),
  {
    files: ['electron/server/**', 'electron/cli/**'],
    rules: restrict(noElectron, noReact, noBackend),
  },
  {
    files: ['electron/main/**', 'electron/preload/**'],
    rules: restrict(noReact, noBackend),
  },
  {
    files: ['renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: restrict(noNode, noElectron, noSqlite, {
      group: ['**/electron/**'],
      message: 'the renderer reaches the engine only through QueueApi',
    }),
  },
  // test/** runs in Node and may use every built-in: no layering restrictions there.
);
