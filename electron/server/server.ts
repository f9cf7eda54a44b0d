/**
 * `semaforo serve`: the JSON API over the shared contract, a server-sent-events stream of
 * coalesced changes, and the built renderer, on node:http (a framework would add nothing the few
 * routes need). This module starts and stops the server; every request passes the guard first
 * (router.ts, guard.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ValidationError } from '../../shared/errors.ts';
import type { Engine } from '../core/engine.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import { createQueueService } from '../core/service.ts';
import { answerClientErrors } from './client-errors.ts';
import { createEventStreams, MAX_EVENT_STREAMS } from './event-stream.ts';
import { loopbackHosts, type GuardConfig } from './guard.ts';
import { sendError } from './http-replies.ts';
import { createRouter } from './router.ts';
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
  const logger = options.logger ?? silentLogger;
  const listening: { guard: GuardConfig; port: number } = {
    guard: { token, allowedHosts: new Set() },
    port: 0,
  };
  const events = createEventStreams(
    options.engine,
    options.maxEventStreams ?? MAX_EVENT_STREAMS,
    options.heartbeatMs ?? 15_000,
  );
  const route = createRouter({
    service: createQueueService(options.engine),
    events,
    staticDir: options.staticDir,
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    logger,
    listening,
  });

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
  answerClientErrors(server);

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
  listening.port = port;
  listening.guard = { token, allowedHosts: wildcard ? null : allowed };
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${wildcard ? '127.0.0.1' : shownHost}:${port}`;
  return {
    url,
    dashboardUrl: `${url}/#token=${token}`,
    token,
    port,
    close: async () => {
      events.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
