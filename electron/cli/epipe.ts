/**
 * A reader that closes the pipe early (`semaforo list | head -1`) is not an error to report:
 * coreutils die of SIGPIPE there, silently, with status 141. Node ignores SIGPIPE and raises
 * EPIPE on the stream instead, which unhandled printed a 25-line stack trace and exited 1.
 */
import type { Writable } from 'node:stream';

const PIPE_CLOSED = 128 + 13; // as a process killed by SIGPIPE

/** Watches `stream`; returns a check that says whether its reader has gone. */
export function quietOnClosedPipe(stream: Writable): () => boolean {
  let closed = false;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
    if (closed) return;
    closed = true;
    // Whatever the command's own exit code, the output it meant to give was cut short.
    process.on('exit', () => {
      process.exitCode = PIPE_CLOSED;
    });
  });
  return () => closed;
}
