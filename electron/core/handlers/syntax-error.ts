/**
 * Where a module's syntax error is: `line 3, column 18`. Node puts the spot in the stack of a
 * CommonJS or TypeScript module's error, but not of an ES module's; for those `node --check`
 * (which parses without running anything) prints it the same way. A `.js` file outside a
 * `"type": "module"` package is checked as CommonJS, and Node 22 then passes a broken ES module
 * (it exits 0, saying nothing), so that one is checked again as an ES module, from stdin.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** The `file:LINE` / source line / `^` block Node prints above a SyntaxError. */
const SPOT = /^(?:file:\/\/)?(.+):(\d+)\r?\n(.*)\r?\n(\s*)\^/m;

function spotIn(text: string): { line: number; column: number } | null {
  const m = SPOT.exec(text);
  return m ? { line: Number(m[2]), column: m[4]!.length + 1 } : null;
}

/** `SyntaxError at line 3, column 18: Unexpected token ';'`, or null for another error. */
export function describeSyntaxError(err: unknown, file: string): string | null {
  if (!(err instanceof SyntaxError)) return null;
  let spot = spotIn(err.stack ?? '');
  if (!spot) spot = spotIn(nodeCheck(['--check', file]));
  if (!spot && file.endsWith('.js')) {
    // Only if it is the same error: a CommonJS module whose SyntaxError came from running (a
    // JSON.parse) may hold what an ES module may not (`package` as a name), somewhere else.
    const esm = nodeCheck(['--check', '--input-type=module'], file);
    if (esm.includes(`SyntaxError: ${err.message}`)) spot = spotIn(esm);
  }
  const where = spot ? ` at line ${spot.line}, column ${spot.column}` : '';
  return `syntax error${where}: ${err.message}`;
}

/** What `node --check` prints on stderr, given the file or (`stdinFile`) its text on stdin. */
function nodeCheck(args: string[], stdinFile?: string): string {
  let input: string | undefined;
  try {
    input = stdinFile === undefined ? undefined : fs.readFileSync(stdinFile, 'utf8');
  } catch {
    return '';
  }
  // In the tray app execPath is Electron, which runs as plain Node with this variable.
  const check = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    timeout: 10_000,
    input,
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  });
  return check.stderr ?? '';
}
