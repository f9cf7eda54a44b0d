/**
 * The server-sent-events stream (`/api/events`): each open stream gets the engine's coalesced
 * changes as "refetch" frames and a heartbeat, up to a bound on streams open at once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiEvent } from '../../shared/api.ts';
import type { Engine } from '../core/engine.ts';
import { HttpError, sendError } from './http-replies.ts';

const MAX_EVENT_IDS = 1000;
/** A browser allows 6 connections per host over HTTP/1.1; 32 streams is many tabs of several browsers. */
export const MAX_EVENT_STREAMS = 32;

export interface EventStreams {
  open(req: IncomingMessage, res: ServerResponse): void;
  close(): void;
}

export function createEventStreams(engine: Engine, maxStreams: number, heartbeatMs: number): EventStreams {
  const clients = new Set<ServerResponse>();

  const open = (req: IncomingMessage, res: ServerResponse) => {
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

  const offChange = engine.onChange((batch) => {
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
  }, heartbeatMs);
  heartbeat.unref();

  return {
    open,
    close: () => {
      offChange();
      clearInterval(heartbeat);
      for (const c of clients) c.end();
      clients.clear();
    },
  };
}
