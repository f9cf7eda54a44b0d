/**
 * `semaforo serve` reads each request one way only: the target must be a path (an absolute URL
 * names a host of its own), the Authorization header must be one, and what a refusal quotes of
 * the request stays short however long the request was.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../electron/server/server.ts';
import { tempDir, testEngine } from '../helpers.ts';
import { rawRequest, request } from '../server/http-client.ts';

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function serve() {
  const dir = tempDir();
  const engine = await testEngine({ file: path.join(dir, 'queue.db') });
  const server = await startServer({ engine, port: 0, dataDir: dir, staticDir: null });
  servers.push(server);
  return { server, engine, host: `127.0.0.1:${server.port}` };
}

const errorOf = (body: string) => (JSON.parse(body) as { error: { message: string } }).error;

describe('request targets and headers', () => {
  it('refuses an absolute-form target with 400, even with the right token', async () => {
    const { server, engine, host } = await serve();
    const body = JSON.stringify({ kind: 'sleep', payload: { ms: 0 } });
    for (const target of ['http://evil.example/api/enqueue', '//evil.example/api/enqueue']) {
      const text =
        `POST ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${server.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const r = await rawRequest(server.port, text);
      expect(r.status).toBe(400);
      expect(errorOf(r.body).message).toBe('the request target must be a path starting with /');
    }
    expect((await engine.listTasks()).total).toBe(0);
  });

  it('refuses two Authorization headers with 400, whichever comes first', async () => {
    const { server, engine, host } = await serve();
    for (const pair of [
      [`Bearer ${server.token}`, 'Bearer wrong'],
      ['Bearer wrong', `Bearer ${server.token}`],
    ]) {
      const text =
        `POST /api/stats HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${pair[0]}\r\nAuthorization: ${pair[1]}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 4\r\n\r\nnull`;
      const r = await rawRequest(server.port, text);
      expect(r.status).toBe(400);
      expect(errorOf(r.body).message).toBe('more than one Authorization header');
    }
    expect((await engine.listTasks()).total).toBe(0);
  });

  it('refuses the event stream with two token parameters, whichever comes first', async () => {
    const { server, host } = await serve();
    for (const query of [`token=${server.token}&token=wrong`, `token=wrong&token=${server.token}`]) {
      const r = await rawRequest(server.port, `GET /api/events?${query} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      expect(r.status).toBe(400);
      expect(errorOf(r.body).message).toBe('more than one token parameter');
    }
  });

  it('does not echo a long argument back whole', async () => {
    const { server, host } = await serve();
    const headers = { host, authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    // A request name as long as the header limit allows (the body's fields have bounds of their own).
    const name = await request(server.port, {
      method: 'POST',
      path: `/api/${'x'.repeat(12_000)}`,
      headers,
      body: 'null',
    });
    for (const r of [name]) {
      expect(r.status, r.body.slice(0, 200)).toBeGreaterThanOrEqual(400);
      expect(r.body.length).toBeLessThan(2000);
      // cut to its start and its length (shared/echo.ts), under the server's own 300-character cap
      expect(errorOf(r.body).message).toMatch(/^unknown request "x{60}…" \(12000 characters\)/);
    }
  });
});
