/** `semaforo install-cli`: puts a `semaforo` launcher on the user's PATH (cron can call it). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { ValidationError } from '../../../shared/errors.ts';
import { appRoot } from '../app-root.ts';
import type { CliContext } from '../context.ts';
import { isOurs, launcherScript, projectNode } from '../install/launcher.ts';

export function installCliCommand(ctx: CliContext): Command {
  const cmd = new Command('install-cli')
    .description("write a `semaforo` launcher into ~/.local/bin that runs this project's Node 22")
    .option('--dir <dir>', 'where to write it', path.join(os.homedir(), '.local', 'bin'))
    .option('--force', 'replace a `semaforo` there that this command did not write')
    .addHelpText(
      'after',
      `
The launcher calls Node and bin/semaforo.js by absolute paths: it needs no PATH, no npm, no
terminal, and prints nothing but the command's own output. In a crontab use its full path:
  */5 * * * * $HOME/.local/bin/semaforo run --group vendor --timeout 10m -- ./scrape.sh`,
    );
  return cmd.action((opts: { dir: string; force?: boolean }) => {
    if (process.platform === 'win32')
      throw new ValidationError([
        { path: 'install-cli', message: 'writes a POSIX shell launcher; not on Windows' },
      ]);
    const dir = path.resolve(opts.dir);
    const file = path.join(dir, 'semaforo');
    if (!opts.force && !isOurs(file))
      throw new ValidationError([
        {
          path: '--dir',
          message: `${file} exists and is not a Semaforo launcher; use --force to replace it`,
        },
      ]);
    const root = appRoot();
    const node = projectNode(root);
    const bin = path.join(root, 'bin', 'semaforo.js');
    fs.mkdirSync(dir, { recursive: true });
    // Written aside and renamed: a cron line starting meanwhile sees the old one or the new one.
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, launcherScript(node, bin), { mode: 0o755 });
    fs.renameSync(tmp, file);
    const onPath = (ctx.ioHandle.env.PATH ?? '').split(path.delimiter).includes(dir);
    ctx.print(cmd, { launcher: file, node, bin, onPath }, () =>
      [
        `installed ${file} (runs ${bin} on ${node})`,
        onPath
          ? ''
          : `${dir} is not on your PATH: add it, or call ${file} by its full path (cron needs the full path anyway)`,
      ]
        .filter(Boolean)
        .join('\n'),
    );
  });
}
