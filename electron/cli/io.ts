/**
 * What a CLI command may touch of the outside world, passed in so commands can be driven in
 * tests and so nothing reads `process` at import time.
 */
import type { Readable } from 'node:stream';
import { watchWriteErrors } from './epipe.ts';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  stdin: Readable;
  env: NodeJS.ProcessEnv;
  /** stderr is a terminal: show progress lines */
  interactive: boolean;
  /** install a handler for SIGINT/SIGTERM; returns a function that removes it */
  onSignal: (handler: (signal: NodeJS.Signals) => void) => () => void;
  /** called if the process exits meanwhile; its answer replaces the exit code (removed by the returned function) */
  onExit?: (handler: () => number) => () => void;
}

export function processIo(): CliIo {
  const outClosed = watchWriteErrors(process.stdout, 'stdout');
  const errClosed = watchWriteErrors(process.stderr, 'stderr');
  return {
    out: (t) => void (outClosed() || process.stdout.write(t)),
    err: (t) => void (errClosed() || process.stderr.write(t)),
    // Read when a command reads it: on a stdin that is a file or /dev/null (a cron line, a
    // spawn with stdin ignored) Node builds an fs.ReadStream, loading fs/promises, readline and
    // the watchers with it.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    interactive: process.stderr.isTTY === true,
    onSignal: (handler) => {
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
      return () => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      };
    },
    onExit: (handler) => {
      const listener = () => (process.exitCode = handler());
      process.on('exit', listener);
      return () => process.off('exit', listener);
    },
  };
}

/** A one-line progress indicator on a terminal; silent otherwise. */
export function progressLine(io: CliIo): { update: (text: string) => void; done: () => void } {
  let shown = false;
  let last = 0;
  return {
    update: (text) => {
      if (!io.interactive) return;
      const now = Date.now();
      if (now - last < 100) return; // a terminal needs no more than ~10 redraws a second
      last = now;
      shown = true;
      io.err(`\r\x1b[2K${text}`);
    },
    done: () => {
      if (shown) io.err('\r\x1b[2K');
      shown = false;
    },
  };
}
