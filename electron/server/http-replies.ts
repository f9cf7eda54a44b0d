/**
 * How the server answers: JSON replies and errors (each error mapped to its status once, here),
 * and closing a connection whose request body was left unread without losing the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  ConflictError,
  NotFoundError,
  ValidationError,
  toErrorInfo,
  type ErrorInfo,
} from '../../shared/errors.ts';
import { StorageError } from '../core/errors.ts';
import { truncateHead } from '../core/bounded.ts';

const MESSAGE_CHARS = 300;

export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

export const methodNotAllowed = (allow: string, message: string) => new HttpError(405, message, { allow });

export function statusOf(err: unknown): number {
  if (err instanceof HttpError) return err.status;
  if (err instanceof ValidationError) return 400;
  if (err instanceof NotFoundError) return 404;
  if (err instanceof ConflictError) return 409;
  if ((err as NodeJS.ErrnoException | undefined)?.code === 'SQLITE_BUSY') return 503;
  // A full disk or a read-only file: the request was fine, the service cannot take it just now,
  // and the message (naming the file and the condition) is what the dashboard should show.
  if (err instanceof StorageError) return 503;
  return 500;
}

/** The request still has body bytes on the wire that nothing has read. */
function bodyUnread(req: IncomingMessage): boolean {
  const mayHaveBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  return mayHaveBody && !req.readableEnded;
}

/** How long a connection closed with bytes still coming in stays open for its answer to be read. */
const LINGER_MS = 1000;

/**
 * Closing a socket while the client's bytes are still unread makes the kernel send a reset, and a
 * reset can make the client's OS drop our answer before the client has read it (it sees a reset,
 * not its 413 or 408). So the answer and a FIN go out now, and the socket is destroyed a moment
 * later, even if the client, ignoring the FIN, keeps sending.
 */
export function destroyAfterLinger(socket: Duplex): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Closes the connection of a request answered before its body was read (refused, or too large),
 * rather than let node drain a body that may never end to keep the connection alive.
 */
function closeAfterAnswer(res: ServerResponse): void {
  const socket = res.req.socket;
  res.once('finish', () => {
    // Node's destroySoon has just queued `destroy` for when the FIN is out: linger instead.
    socket.removeListener('finish', socket.destroy);
    destroyAfterLinger(socket);
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  const close = bodyUnread(res.req);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(close ? { connection: 'close' } : {}),
    ...extra,
  });
  if (close) closeAfterAnswer(res);
  res.end(text);
}

export function describeError(err: unknown): { status: number; info: ErrorInfo } {
  const status = statusOf(err);
  const info: ErrorInfo =
    status === 500 ? { name: 'Error', message: 'internal error (see the server log)' } : toErrorInfo(err);
  if (err instanceof HttpError) info.name = 'HttpError';
  // A message may quote what the client sent: never echo more than a line of it back.
  info.message = truncateHead(info.message, MESSAGE_CHARS);
  for (const issue of info.issues ?? []) issue.message = truncateHead(issue.message, MESSAGE_CHARS);
  return { status, info };
}

export function sendError(res: ServerResponse, err: unknown): void {
  const { status, info } = describeError(err);
  sendJson(res, status, { error: info }, err instanceof HttpError ? err.headers : {});
}
