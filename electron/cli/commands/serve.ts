/** `semaforo serve`: the dashboard and its API for a headless box, with a dispatcher. */
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { ValidationError } from '../../../shared/errors.ts';
import { stderrLogger } from '../../core/logger.ts';
import { startServer } from '../../server/server.ts';
import { appRoot } from '../app-root.ts';
import type { CliContext } from '../context.ts';
import { loadKinds } from '../kinds.ts';

/** The renderer build next to the sources (dist/renderer, made by `npm run build`). */
export const DEFAULT_STATIC_DIR = path.join(appRoot(), 'dist/renderer');

export function serveCommand(ctx: CliContext): Command {
  const cmd = new Command('serve')
    .description('serve the dashboard and its API over HTTP, and run a dispatcher')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '7391')
    .option('--allow-remote', 'allow binding an interface other than loopback (the token still applies)')
    .option('--no-work', 'serve only; leave running tasks to other workers')
    .option('--static <dir>', 'the built renderer to serve', DEFAULT_STATIC_DIR);
  return cmd.action(
    async (opts: { host: string; port: string; allowRemote?: boolean; work: boolean; static: string }) => {
      const io = ctx.ioHandle;
      if (!/^\d+$/.test(opts.port) || Number(opts.port) > 65_535)
        throw new ValidationError([
          { path: '--port', message: `"${opts.port}" is not a port number (0-65535)` },
        ]);
      const { handlers, errors } = await loadKinds(ctx, cmd);
      for (const e of errors) io.err(`semaforo: warning: kind module ${e.file} not loaded: ${e.message}\n`);
      const engine = await ctx.engine(cmd, {
        userHandlers: handlers,
        workerLabel: 'serve',
        // Without a dispatcher, other processes' writes only refresh the dashboard: a slower look.
        ...(opts.work ? {} : { pollIntervalMs: 100 }),
      });
      const staticDir = fs.existsSync(path.join(opts.static, 'index.html')) ? opts.static : null;
      const server = await startServer({
        engine,
        host: opts.host,
        port: Number(opts.port),
        allowRemote: opts.allowRemote,
        dataDir: ctx.localFolder(cmd),
        staticDir,
        logger: stderrLogger(ctx.globals(cmd).verbose === true),
      });
      io.out(`Dashboard: ${server.dashboardUrl}\n`);
      if (!staticDir)
        io.err(
          `semaforo serve: warning: no dashboard build in ${opts.static}; run \`npm run build\` (API only)\n`,
        );
      if (opts.allowRemote && !['127.0.0.1', 'localhost', '::1'].includes(opts.host))
        io.err(
          `semaforo serve: warning: listening on ${opts.host}: anyone on the network with the token controls this queue\n`,
        );
      if (opts.work) {
        await engine.registry.loadPayloadSchemas();
        engine.start();
      } else engine.watchExternalChanges();
      await new Promise<void>((resolve) => {
        const off = io.onSignal(() => {
          off();
          resolve();
        });
      });
      io.err('semaforo serve: stopping…\n');
      await server.close();
      await engine.stop(10_000);
    },
  );
}
