/**
 * `semaforo serve`: the JSON API over the shared contract, a server-sent-events stream of
 * coalesced changes, and the built renderer, on node:http (a framework would add nothing the few
 * routes below need). Every request passes the guard first (guard.ts).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ApiEvent } from '../../shared/api.ts';
import {
  ConflictError,
  NotFoundError,
  ValidationError,
  toErrorInfo,
  type ErrorInfo,
} from '../../shared/errors.ts';
import type { Engine } from '../core/engine.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import { createQueueService, handleRequest } from '../core/service.ts';
import { StorageError } from '../core/errors.ts';
import { bearerOf, checkHost, checkOrigin, checkToken, loopbackHosts, type GuardConfig } from './guard.ts';
import { runBatch } from './batch.ts';
import { sessionCookie, sessionMatches } from './session.ts';
import { resolveStatic, sendStatic } from './static-files.ts';
import { loadOrCreateToken } from './token.ts';
import { truncateHead } from '../core/bounded.ts';

const MESSAGE_CHARS = 300;

export interface ServerOptions {
  engine: Engine;
  host?: string;
  /** 0 picks a free port */
  port?: number;
  /** binding anything but loopback needs this, on purpose */
  allowRemote?: boolean;
  /** where the token file lives (the data folder) */
  dataDir: string;
  /** the built renderer (dist/renderer); null serves the API only */
  staticDir: string | null;
  /** largest request body accepted */
  maxBodyBytes?: number;
  heartbeatMs?: number;
  /** most event streams open at once (each holds a socket while a dashboard tab is open) */
  maxEventStreams?: number;
  /**
   * How long a client may take to send its headers, and its whole request. A slow or stuck client
   * (slowloris: headers trickled byte by byte, a body that never ends) is answered 408 and cut off
   * after these, however slowly it keeps sending.
   */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  logger?: Logger;
}

export interface RunningServer {
  url: string;
  /** the URL to open: `url` with the token in the fragment (never sent to the server in logs) */
  dashboardUrl: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const MAX_EVENT_IDS = 1000;
/** A browser allows 6 connections per host over HTTP/1.1; 32 streams is many tabs of several browsers. */
export const MAX_EVENT_STREAMS = 32;

class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

const methodNotAllowed = (allow: string, message: string) => new HttpError(405, message, { allow });

function statusOf(err: unknown): number {
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
function destroyAfterLinger(socket: Duplex): void {
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

function sendJson(
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

function describeError(err: unknown): { status: number; info: ErrorInfo } {
  const status = statusOf(err);
  const info: ErrorInfo =
    status === 500 ? { name: 'Error', message: 'internal error (see the server log)' } : toErrorInfo(err);
  if (err instanceof HttpError) info.name = 'HttpError';
  // A message may quote what the client sent: never echo more than a line of it back.
  info.message = truncateHead(info.message, MESSAGE_CHARS);
  for (const issue of info.issues ?? []) issue.message = truncateHead(issue.message, MESSAGE_CHARS);
  return { status, info };
}

function sendError(res: ServerResponse, err: unknown): void {
  const { status, info } = describeError(err);
  sendJson(res, status, { error: info }, err instanceof HttpError ? err.headers : {});
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
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

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host) && !options.allowRemote)
    throw new ValidationError([
      {
        path: '--host',
        message: `"${host}" is not loopback; pass --allow-remote to expose the queue to the network`,
      },
    ]);
  const token = loadOrCreateToken(options.dataDir);
  const service = createQueueService(options.engine);
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const maxStreams = options.maxEventStreams ?? MAX_EVENT_STREAMS;
  const clients = new Set<ServerResponse>();
  const logger = options.logger ?? silentLogger;
  let guard: GuardConfig = { token, allowedHosts: new Set() };

  const api = async (req: IncomingMessage, res: ServerResponse, name: string) => {
    if (req.method !== 'POST') throw methodNotAllowed('POST', 'API requests are POST with a JSON body');
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\b/i.test(type)) throw new HttpError(415, 'send Content-Type: application/json');
    const text = await readBody(req, maxBody);
    let input: unknown;
    try {
      input = text.trim() === '' ? undefined : JSON.parse(text);
    } catch (err) {
      throw new ValidationError([{ path: 'body', message: `is not valid JSON (${(err as Error).message})` }]);
    }
    // `null` is how a transport says "no input" in JSON.
    const run = (n: string, i: unknown) => handleRequest(service, n, i === null ? undefined : i);
    const value =
      name === 'batch'
        ? await runBatch(input, run, (err) => {
            if (statusOf(err) === 500) logger.error(`request ${name} failed: ${String(err)}`);
            return describeError(err);
          })
        : await run(name, input);
    sendJson(res, 200, { value: value ?? null });
  };

  const events = (req: IncomingMessage, res: ServerResponse) => {
    // Each stream holds a socket for as long as it is open; without a bound, a client holding the
    // token (or a runaway tab reconnecting) could take every file descriptor the process has.
    if (clients.size >= maxStreams)
      return sendError(
        res,
        new HttpError(503, `too many open event streams (at most ${maxStreams}); close a dashboard tab`, {
          'retry-after': '5',
        }),
      );
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
    });
    res.write('retry: 2000\n\n');
    clients.add(res);
    req.on('close', () => clients.delete(res));
  };

  const route = (req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://placeholder');
    } catch {
      // e.g. `GET http://[/`: node's parser lets it through, and a throw here would end the process.
      return sendError(res, new HttpError(400, 'malformed request target'));
    }
    // Only a path (origin form): an absolute target (`POST http://evil.example/api/...`) names a
    // host of its own, which a proxy and this server may read differently from the Host header.
    const target = req.url ?? '/';
    if (!target.startsWith('/') || target.startsWith('//'))
      return sendError(res, new HttpError(400, 'the request target must be a path starting with /'));
    // Exactly one Host header (RFC 9112 says 400 otherwise): the guard judges the request by it,
    // and two are how a proxy and this server come to disagree on which one was checked.
    const hosts = req.headersDistinct.host?.length ?? 0;
    if (hosts !== 1)
      return sendError(res, new HttpError(400, hosts ? 'more than one Host header' : 'missing Host header'));
    const hostOk = checkHost(req.headers.host, guard);
    if (!hostOk.ok)
      return sendJson(res, hostOk.status, { error: { name: 'Forbidden', message: hostOk.message } });
    if (url.pathname.startsWith('/api/')) {
      const origin = checkOrigin(req.headers.origin, req.headers.host!);
      if (!origin.ok)
        return sendJson(res, origin.status, { error: { name: 'Forbidden', message: origin.message } });
      // Node keeps the first of two Authorization headers: which one did a proxy check?
      if ((req.headersDistinct.authorization?.length ?? 0) > 1)
        return sendError(res, new HttpError(400, 'more than one Authorization header'));
      const isEvents = url.pathname === '/api/events';
      if (isEvents && url.searchParams.getAll('token').length > 1)
        return sendError(res, new HttpError(400, 'more than one token parameter'));
      const given = isEvents ? url.searchParams.get('token') : bearerOf(req.headers.authorization);
      // The dashboard's session cookie stands for the token (session.ts); API clients send the token.
      const hasSession = given === null && sessionMatches(req.headers.cookie, port, guard.token);
      const auth = hasSession ? { ok: true as const } : checkToken(given, guard);
      if (!auth.ok)
        return sendJson(res, auth.status, { error: { name: 'Unauthorized', message: auth.message } });
      if (url.pathname === '/api/session') {
        if (req.method !== 'POST')
          return sendError(res, methodNotAllowed('POST', 'a session is opened by POST'));
        return sendJson(res, 200, { value: null }, { 'set-cookie': sessionCookie(port, guard.token) });
      }
      if (isEvents) {
        if (req.method !== 'GET') return sendError(res, methodNotAllowed('GET', 'the event stream is GET'));
        return events(req, res);
      }
      api(req, res, url.pathname.slice('/api/'.length)).catch((err: unknown) => {
        if (statusOf(err) === 500) logger.error(`request ${url.pathname} failed: ${String(err)}`);
        sendError(res, err);
      });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendError(res, methodNotAllowed('GET, HEAD', 'method not allowed'));
    if (!options.staticDir) return sendError(res, new HttpError(404, 'no dashboard build here (API only)'));
    // Paths without an extension are screens of the single-page app.
    const file =
      resolveStatic(options.staticDir, url.pathname) ??
      (/\.[a-z0-9]+$/i.test(url.pathname) ? null : resolveStatic(options.staticDir, '/'));
    if (!file) return sendError(res, new HttpError(404, `no such file: ${url.pathname}`));
    sendStatic(res, file, req.method);
  };

  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? 30_000, headersTimeout);
  const server = http.createServer(
    {
      // Slow or stuck clients must not hold sockets forever (the event stream is exempt: its
      // request is complete once its headers are in). Node checks these timeouts only every
      // connectionsCheckingInterval (30 s by default), which would let a slowloris client hold
      // its socket for up to 40 s instead of 10; check at least every second.
      headersTimeout,
      requestTimeout,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4))),
      keepAliveTimeout: 5_000,
      // node's own check answers a missing Host with a bare 400; ours says why, in JSON.
      requireHostHeader: false,
    },
    (req, res) => {
      try {
        route(req, res);
      } catch (err) {
        // A bug in one request's handling must not take the server (and its dispatcher) down.
        logger.error(`request ${String(req.url).slice(0, 200)} failed: ${String(err)}`);
        sendError(res, err);
      }
    },
  );
  // Requests node cannot parse (unknown method, bad Content-Length, headers too large) and
  // requests that time out get a JSON answer like every other refusal, then the socket closes.
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

  const offChange = options.engine.onChange((batch) => {
    const data: ApiEvent['data'] = {
      taskIds: batch.taskIds.length > MAX_EVENT_IDS ? [] : batch.taskIds,
      external: batch.external || batch.taskIds.length > MAX_EVENT_IDS,
    };
    const frame = `event: changed\ndata: ${JSON.stringify(data)}\n\n`;
    // A client that cannot keep up skips frames: each one only says "refetch", so none is owed.
    for (const c of clients) if (c.writableLength < 64 * 1024) c.write(frame);
  });
  const heartbeat = setInterval(() => {
    for (const c of clients) c.write(': ping\n\n');
  }, options.heartbeatMs ?? 15_000);
  heartbeat.unref();

  let port = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 7391, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const wildcard = host === '0.0.0.0' || host === '::';
  const allowed = loopbackHosts(port);
  if (!LOOPBACK.has(host)) allowed.add(`${host.includes(':') ? `[${host}]` : host}:${port}`);
  guard = { token, allowedHosts: wildcard ? null : allowed };
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${wildcard ? '127.0.0.1' : shownHost}:${port}`;
  return {
    url,
    dashboardUrl: `${url}/#token=${token}`,
    token,
    port,
    close: async () => {
      offChange();
      clearInterval(heartbeat);
      for (const c of clients) c.end();
      clients.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
