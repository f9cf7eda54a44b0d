/**
 * Which handler a request goes to, after the checks every request passes first (one path-form
 * target, one Host, the guard's host, origin and token checks, guard.ts): the JSON API, the
 * session cookie, the event stream, or the built renderer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError } from '../../shared/errors.ts';
import type { Logger } from '../core/logger.ts';
import { handleRequest, type QueueService } from '../core/service.ts';
import { runBatch } from './batch.ts';
import type { EventStreams } from './event-stream.ts';
import { bearerOf, checkHost, checkOrigin, checkToken, type GuardConfig } from './guard.ts';
import { HttpError, describeError, methodNotAllowed, sendError, sendJson, statusOf } from './http-replies.ts';
import { readBody } from './request-body.ts';
import { sessionCookie, sessionMatches } from './session.ts';
import { resolveStatic, sendStatic } from './static-files.ts';

export interface RouterContext {
  service: QueueService;
  events: EventStreams;
  /** the built renderer (dist/renderer); null serves the API only */
  staticDir: string | null;
  maxBodyBytes: number;
  logger: Logger;
  /** what the guard checks, and the port: both known only once the server listens */
  listening: { guard: GuardConfig; port: number };
}

export function createRouter(ctx: RouterContext): (req: IncomingMessage, res: ServerResponse) => void {
  const { service, events, logger, listening } = ctx;

  const api = async (req: IncomingMessage, res: ServerResponse, name: string) => {
    if (req.method !== 'POST') throw methodNotAllowed('POST', 'API requests are POST with a JSON body');
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\b/i.test(type)) throw new HttpError(415, 'send Content-Type: application/json');
    const text = await readBody(req, ctx.maxBodyBytes);
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

  return (req: IncomingMessage, res: ServerResponse) => {
    const { guard, port } = listening;
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
        return events.open(req, res);
      }
      api(req, res, url.pathname.slice('/api/'.length)).catch((err: unknown) => {
        if (statusOf(err) === 500) logger.error(`request ${url.pathname} failed: ${String(err)}`);
        sendError(res, err);
      });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendError(res, methodNotAllowed('GET, HEAD', 'method not allowed'));
    if (!ctx.staticDir) return sendError(res, new HttpError(404, 'no dashboard build here (API only)'));
    // Paths without an extension are screens of the single-page app.
    const file =
      resolveStatic(ctx.staticDir, url.pathname) ??
      (/\.[a-z0-9]+$/i.test(url.pathname) ? null : resolveStatic(ctx.staticDir, '/'));
    if (!file) return sendError(res, new HttpError(404, `no such file: ${url.pathname}`));
    sendStatic(res, file, req.method);
  };
}
