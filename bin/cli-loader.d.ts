// Types for bin/cli-loader.js (plain JavaScript, as the launcher is), for its tests.
export interface BuildLoader {
  /** The exports of the chunk at `file` (an absolute path), run once. */
  load(file: string): unknown;
  /** Writes the caches that were missing or refused; never throws. */
  saveCaches(): void;
}
/** The name a chunk calls for a non-literal `import()` (see build/cli-format.ts). */
export const DYNAMIC_IMPORT: string;
export function buildLoader(cacheDir: string, key: string): BuildLoader;
export function commandKey(argv: readonly string[]): string;
/** The file name of `file`'s code cache for command `key` (in the loader's cache folder). */
export function cacheName(file: string, key: string): string;
/** Whether a run of `argv` writes the caches it lacked (not a command's `--help`). */
export function leavesCaches(argv: readonly string[]): boolean;
