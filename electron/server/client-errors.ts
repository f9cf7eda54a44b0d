/**
 * Requests node cannot parse (unknown method, bad Content-Length, headers too large), requests that
 * time out, and CONNECT: these never reach the router, so they are answered here, on the socket,
 * with a JSON error like every other refusal, then the socket closes.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { destroyAfterLinger } from './http-replies.ts';

/** A bare HTTP/1.1 answer for a socket whose request node could not parse (no response object). */
function rawJsonResponse(status: number, message: string): string {
  const text = JSON.stringify({ error: { name: 'HttpError', message } });
  return (
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${Buffer.byteLength(text)}\r\n` +
    'cache-control: no-store\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n' +
    text
  );
}

/** What a parser or timeout error on a client socket is answered with. */
function clientErrorResponse(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'the request took too long to arrive' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: 'request headers too large' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, message: 'malformed request: unknown method' };
    default:
      return { status: 400, message: 'malformed request' };
  }
}

export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way on this socket (node's own check, `_httpMessage`) cannot be
    // followed by another status line; a reset socket cannot be written at all.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || (inFlight && inFlight.headersSent))
      return void socket.destroy();
    const { status, message } = clientErrorResponse(err.code);
    socket.end(rawJsonResponse(status, message));
    destroyAfterLinger(socket);
  });
  // CONNECT (a proxy tunnel) is not for this server; without a listener node drops it silently.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.end(rawJsonResponse(405, 'CONNECT is not supported'));
    destroyAfterLinger(socket);
  });
}
