/**
 * A reader that closes the pipe early (`semaforo list | head -1`) is not an error to report:
 * coreutils die of SIGPIPE there, silently, with status 141. Node ignores SIGPIPE and raises
 * EPIPE on the stream instead, which unhandled printed a 25-line stack trace and exited 1.
 * Any other write error (a full disk: `semaforo list > /dev/full`) is one line and status 1, as
 * coreutils' "write error" is.
 */
import fs from 'node:fs';
import type { Writable } from 'node:stream';

const PIPE_CLOSED = 128 + 13; // as a process killed by SIGPIPE

/** Watches `stream`; returns a check that says whether its output can no longer be written. */
export function watchWriteErrors(stream: Writable, name: string): () => boolean {
  let closed = false;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (closed) return;
    closed = true;
    const pipeClosed = err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED';
    if (!pipeClosed) {
      try {
        // Straight to fd 2: the stream that failed may be stderr itself.
        fs.writeSync(2, `semaforo: write error on ${name}: ${err.message}\n`);
      } catch {
        // nowhere left to say it; the status still tells
      }
    }
    // Whatever the command's own exit code, the output it meant to give was cut short.
    process.on('exit', () => {
      if (pipeClosed) process.exitCode = PIPE_CLOSED;
      else if (!process.exitCode) process.exitCode = 1;
    });
  });
  return () => closed;
}
