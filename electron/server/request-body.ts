/** Reads a request's body up to a size limit, refusing a larger one without losing the answer. */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-replies.ts';

export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new HttpError(413, `request body over ${limit} bytes`);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) return reject(tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        // Stop reading but keep the socket: destroying it would lose the 413 answer (and a body
        // without Content-Length, chunked, only shows its size here).
        req.off('data', onData);
        req.pause();
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
