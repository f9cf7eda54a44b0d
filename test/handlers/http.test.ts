import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.ts';
import { testEngine, waitFor } from '../helpers.ts';
import type { Engine } from '../../electron/core/engine.ts';
import { parseTaskSpecNow } from '../../shared/task-spec-now.ts';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

type Reply = (req: Seen, res: http.ServerResponse, n: number) => void;

const servers: http.Server[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A loopback server answering with `reply`; `n` counts requests from 1. */
async function serve(reply: Reply): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      };
      seen.push(s);
      reply(s, res, seen.length);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const finished = (engine: Engine, id: number) =>
  waitFor(async () => {
    const t = await engine.getTask(id);
    return ['done', 'failed', 'cancelled'].includes(t.status) && t;
  }, `task ${id} finished`);

describe('http kind', () => {
  it('succeeds on 200 and keeps status, a few headers and a bounded body excerpt', async () => {
    const big = 'x'.repeat(10_000);
    const { url } = await serve((_req, res) => {
      const body = `hello ${big}`;
      res.writeHead(200, {
        'content-type': 'text/plain',
        'content-length': String(body.length),
        etag: '"v1"',
        'x-noise': 'dropped',
      });
      res.end(body);
    });
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({ kind: 'http', payload: { method: 'get', url: `${url}/ok` } });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('done');
    const result = t.result as {
      status: number;
      headers: Record<string, string>;
      body: string;
      bodyTruncated: boolean;
    };
    expect(result.status).toBe(200);
    expect(result.headers).toEqual({ 'content-type': 'text/plain', etag: '"v1"', 'content-length': '10006' });
    expect(result.body.startsWith('hello xxx')).toBe(true);
    expect(result.body.length).toBe(4096);
    expect(result.bodyTruncated).toBe(true);
    await engine.stop();
  });

  it('sends method, headers and a JSON body', async () => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(201, { location: '/items/7' });
      res.end();
    });
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({
      kind: 'http',
      payload: { method: 'POST', url: `${url}/items?key=secret`, headers: { 'x-api': 'k1' }, body: { n: 7 } },
    });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('done');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/items?key=secret', body: '{"n":7}' });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.headers['x-api']).toBe('k1');
    expect(t.result).toMatchObject({ status: 201, headers: { location: '/items/7' } });
    await engine.stop();
  });

  it('treats expectStatus as the success status, and anything else as a permanent failure', async () => {
    const { url } = await serve((req, res) => {
      res.writeHead(req.url === '/moved' ? 302 : 200, { location: '/elsewhere' });
      res.end();
    });
    const engine = await testEngine();
    engine.start();
    const redirect = await engine.enqueue({
      kind: 'http',
      payload: { url: `${url}/moved`, expectStatus: 302 },
    });
    const wrong = await engine.enqueue({
      kind: 'http',
      maxAttempts: 3,
      payload: { url: `${url}/ok`, expectStatus: 204 },
    });
    const r = await finished(engine, redirect.task.id);
    expect(r.status).toBe('done');
    // Expecting the redirect means not following it.
    expect(r.result).toMatchObject({ status: 302, headers: { location: '/elsewhere' } });
    const w = await finished(engine, wrong.task.id);
    expect(w.status).toBe('failed');
    expect(w.attempts).toBe(1);
    expect(w.error).toMatch(/-> 200 OK \(expected 204\)/);
    await engine.stop();
  });

  it('fails a 404 after one attempt, with the status and the body in the error', async () => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"no such user"}');
    });
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({
      kind: 'http',
      maxAttempts: 3,
      payload: { url: `${url}/users/9?token=abc` },
    });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('failed');
    expect(t.attempts).toBe(1);
    expect(seen).toHaveLength(1);
    expect(t.error).toContain(`GET ${url}/users/9 -> 404 Not Found: {"error":"no such user"}`);
    // The query (often a key) stays out of the error text.
    expect(t.error).not.toContain('abc');
    await engine.stop();
  });

  it('retries a 500 with backoff and succeeds when the server recovers', async () => {
    const { url, seen } = await serve((_req, res, n) => {
      res.writeHead(n < 3 ? 500 : 200);
      res.end(n < 3 ? 'database down' : 'ok');
    });
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({ kind: 'http', maxAttempts: 3, payload: { url } });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('done');
    expect(t.attempts).toBe(3);
    expect(seen).toHaveLength(3);
    expect(t.history.filter((h) => h.type === 'attempt')[0]!.error).toMatch(
      /500 Internal Server Error: database down/,
    );
    await engine.stop();
  });

  it('waits out a 429 Retry-After without using up an attempt, and blocks the whole group meanwhile', async () => {
    const { url, seen } = await serve((_req, res, n) => {
      if (n === 1) res.writeHead(429, { 'retry-after': '1' });
      else res.writeHead(200);
      res.end();
    });
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({
      kind: 'http',
      group: 'vendor',
      maxAttempts: 1,
      payload: { url },
    });
    await waitFor(
      async () => (await engine.getTask(task.id)).status === 'retrying',
      'the 429 to reschedule the task',
    );
    const group = (await engine.stats()).groups.find((g) => g.name === 'vendor')!;
    expect(group.blockedUntil).toBeGreaterThan(seen[0]!.at + 900);
    const t = await finished(engine, task.id);
    expect(t.status).toBe('done');
    // maxAttempts 1 and still done: the 429 did not count as an attempt.
    expect(t.attempts).toBe(1);
    expect(t.retryAfterCount).toBe(1);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(t.history.find((h) => h.outcome === 'retry-after')!.error).toMatch(
      /429 Too Many Requests; waiting 1 s/,
    );
    await engine.stop();
  });

  it('retries a network error (nothing listening) and fails once attempts run out', async () => {
    const { url } = await serve(() => {});
    // Free the port again: connections to it are now refused.
    const s = servers.pop()!;
    await new Promise((r) => s.close(r));
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({ kind: 'http', maxAttempts: 2, payload: { url } });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('failed');
    expect(t.attempts).toBe(2);
    expect(t.error).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/ failed: .*ECONNREFUSED/);
    await engine.stop();
  });

  it('gives up on a server that never answers after timeoutMs', async () => {
    const { url } = await serve(() => {});
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({ kind: 'http', maxAttempts: 1, payload: { url, timeoutMs: 200 } });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('failed');
    expect(t.error).toMatch(/no complete response within 200 ms/);
    await engine.stop();
  });

  it('cancelling a request in flight ends the task cancelled', async () => {
    const { url, seen } = await serve(() => {});
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({ kind: 'http', payload: { url } });
    await waitFor(() => seen.length === 1, 'the request to arrive');
    await engine.cancel([task.id]);
    const t = await finished(engine, task.id);
    expect(t.status).toBe('cancelled');
    expect(t.attempts).toBe(1);
    await engine.stop();
  });

  it('refuses non-http URLs and malformed requests at enqueue, naming the field', async () => {
    const engine = await testEngine();
    const issues = async (payload: unknown) => {
      try {
        await engine.enqueue(parseTaskSpecNow({ kind: 'http', payload }));
      } catch (err) {
        return (err as ValidationError).issues;
      }
      throw new Error('accepted');
    };
    expect(await issues({ url: 'file:///etc/passwd' })).toEqual([
      { path: 'payload.url', message: 'must use http: or https:, not file:' },
    ]);
    expect((await issues({ url: 'not a url' }))[0]!.path).toBe('payload.url');
    expect((await issues({ url: 'http://user:pw@example.com/' }))[0]!.message).toMatch(/credentials/);
    expect((await issues({ url: 'http://example.com/', method: 'GET', body: 'x' }))[0]!.path).toBe(
      'payload.body',
    );
    expect((await issues({ url: 'http://example.com/', method: 'FETCH' }))[0]!.path).toBe('payload.method');
    expect((await issues({ url: 'http://example.com/', headers: { 'bad header': 'x' } }))[0]!.path).toBe(
      'payload.headers.bad header',
    );
    await expect(engine.enqueue({ kind: 'http', payload: { url: 'ftp://x/' } })).rejects.toThrow(
      ValidationError,
    );
  });
});
