/**
 * The `semaforo` launcher `install-cli` writes: a two-line shell script that runs the project's
 * own Node on bin/semaforo.js by absolute paths, so it works from cron's bare environment
 * (`PATH=/usr/bin:/bin`, run in $HOME) and on a machine whose system Node is older, with no npm
 * in between (npm would print its warnings on every call, and npx outside the project would
 * ask the public registry for a package of that name).
 */
import fs from 'node:fs';
import path from 'node:path';

/** The first line after the shebang: how a launcher of ours is told from someone else's file. */
export const LAUNCHER_MARK = '# semaforo launcher, written by `semaforo install-cli`';

/** `text` as one word for /bin/sh, whatever it holds. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function launcherScript(node: string, bin: string): string {
  return [
    '#!/bin/sh',
    `${LAUNCHER_MARK} (run it again after moving the project).`,
    `exec ${shellQuote(node)} ${shellQuote(bin)} "$@"`,
    '',
  ].join('\n');
}

/**
 * The Node to run: the project's own (the `node` devDependency's binary), else the one running
 * now (bin/semaforo.js has checked its version already).
 */
export function projectNode(root: string, running = process.execPath): string {
  const own = path.join(root, 'node_modules', 'node', 'bin', 'node');
  return fs.existsSync(own) ? own : running;
}

/** Whether `file` may be replaced: absent, or a launcher this command wrote. */
export function isOurs(file: string): boolean {
  try {
    return fs.readFileSync(file, 'utf8').split('\n')[1]?.startsWith(LAUNCHER_MARK) === true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
