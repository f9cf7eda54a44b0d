/**
 * better-sqlite3, loaded with `require`. Imported as an ES module, Node would first scan its
 * CommonJS source for export names (cjs-module-lexer): about 6 ms of CPU at every CLI start
 * (test/bench/RESULTS.md, section 8), for a name list nothing here uses.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
