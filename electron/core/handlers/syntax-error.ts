/**
 * Where a module's syntax error is: `line 3, column 18`. Node puts the spot in the stack of a
 * CommonJS or TypeScript module's error, but not of an ES module's; for those `node --check`
 * (which parses without running anything) prints it the same way.
 */
import { spawnSync } from 'node:child_process';

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
  if (!spot) {
    // In the tray app execPath is Electron, which runs as plain Node with this variable.
    const check = spawnSync(process.execPath, ['--check', file], {
      encoding: 'utf8',
      timeout: 10_000,
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    spot = spotIn(check.stderr ?? '');
  }
  const where = spot ? ` at line ${spot.line}, column ${spot.column}` : '';
  return `syntax error${where}: ${err.message}`;
}
