/**
 * `semaforo serve`: the JSON API over the shared contract, a server-sent-events stream of
 * coalesced changes, and the built renderer, on node:http (a framework would add nothing the few
 * routes below need). Every request passes the guard first (guard.ts).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiEvent } from '../../shared/api.ts';
import { ConflictError, NotFoundError, ValidationError, toErrorInfo } from '../../shared/errors.ts';
import type { Engine } from '../core/engine.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import { createQueueService, handleRequest } from '../core/service.ts';
import { StorageError } from '../core/store/sqlite/storage-errors.ts';
import { bearerOf, checkHost, checkOrigin, checkToken, loopbackHosts, type GuardConfig } from './guard.ts';
import { resolveStatic, sendStatic } from './static-files.ts';
import { loadOrCreateToken } from './token.ts';

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

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

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

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}

function sendError(res: ServerResponse, err: unknown): void {
  const status = statusOf(err);
  const info =
    status === 500 ? { name: 'Error', message: 'internal error (see the server log)' } : toErrorInfo(err);
  if (err instanceof HttpError) info.name = 'HttpError';
  sendJson(res, status, { error: info });
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) return reject(new HttpError(413, `request body over ${limit} bytes`));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new HttpError(413, `request body over ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
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
  const clients = new Set<ServerResponse>();
  const logger = options.logger ?? silentLogger;
  let guard: GuardConfig = { token, allowedHosts: new Set() };

  const api = async (req: IncomingMessage, res: ServerResponse, name: string) => {
    if (req.method !== 'POST') throw new HttpError(405, 'API requests are POST with a JSON body');
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
    const value = handleRequest(service, name, input === null ? undefined : input);
    sendJson(res, 200, { value: value ?? null });
  };

  const events = (req: IncomingMessage, res: ServerResponse) => {
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

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const hostOk = checkHost(req.headers.host, guard);
    if (!hostOk.ok)
      return sendJson(res, hostOk.status, { error: { name: 'Forbidden', message: hostOk.message } });
    if (url.pathname.startsWith('/api/')) {
      const origin = checkOrigin(req.headers.origin, req.headers.host!);
      if (!origin.ok)
        return sendJson(res, origin.status, { error: { name: 'Forbidden', message: origin.message } });
      const isEvents = url.pathname === '/api/events';
      const given = isEvents ? url.searchParams.get('token') : bearerOf(req.headers.authorization);
      const auth = checkToken(given, guard);
      if (!auth.ok)
        return sendJson(res, auth.status, { error: { name: 'Unauthorized', message: auth.message } });
      if (isEvents) {
        if (req.method !== 'GET') return sendError(res, new HttpError(405, 'the event stream is GET'));
        return events(req, res);
      }
      api(req, res, url.pathname.slice('/api/'.length)).catch((err: unknown) => {
        if (statusOf(err) === 500) logger.error(`request ${url.pathname} failed: ${String(err)}`);
        if (!res.headersSent) sendError(res, err);
      });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendError(res, new HttpError(405, 'method not allowed'));
    if (!options.staticDir) return sendError(res, new HttpError(404, 'no dashboard build here (API only)'));
    // Paths without an extension are screens of the single-page app.
    const file =
      resolveStatic(options.staticDir, url.pathname) ??
      (/\.[a-z0-9]+$/i.test(url.pathname) ? null : resolveStatic(options.staticDir, '/'));
    if (!file) return sendError(res, new HttpError(404, `no such file: ${url.pathname}`));
    sendStatic(res, file, req.method);
  });
  // Slow or stuck clients must not hold sockets forever (the event stream is exempt: it is answered).
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

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

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 7391, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
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
