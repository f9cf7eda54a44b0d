/**
 * The project folder (the one holding Semaforo's package.json), found from this module's own
 * place: it runs from electron/cli in a checkout and from dist/cli when built, so a fixed
 * `../..` would be right in only one of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

export function appRoot(): string {
  if (found) return found;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === 'semaforo') return (found = dir);
    } catch {
      // no package.json here: keep going up
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error("cannot find Semaforo's package.json above its own files");
    dir = up;
  }
}
