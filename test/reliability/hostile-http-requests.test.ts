/**
 * `semaforo serve` under odd methods (405 with Allow, 400, CONNECT), malformed request targets,
 * and more event streams than it holds (503 until a slot frees).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_EVENT_STREAMS } from '../../electron/server/event-stream.ts';
import { rawRequest, request } from '../server/http-client.ts';
import { serve, refusal, openStream } from './hostile-http-setup.ts';

describe('serve: methods, request targets, streams', () => {
  it('answers odd methods with 405 and Allow, unknown ones with 400, CONNECT with 405', async () => {
    const { server, auth, json, legit } = await serve();
    const p = server.port;
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND', 'TRACE']) {
      const r = await request(p, { method, path: '/api/stats', headers: json });
      refusal(r, 405);
      expect(r.headers.allow).toBe('POST');
    }
    const head = await request(p, { method: 'HEAD', path: '/api/stats', headers: json });
    expect([head.status, head.headers.allow]).toEqual([405, 'POST']);
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const r = await request(p, { method, path: `/api/events?token=${server.token}`, headers: auth });
      expect([refusal(r, 405).message, r.headers.allow]).toEqual(['the event stream is GET', 'GET']);
    }
    for (const method of ['POST', 'DELETE', 'MKCOL']) {
      const r = await request(p, { method, path: '/index.html', headers: { host: auth.host } });
      expect([r.status, r.headers.allow]).toEqual([405, 'GET, HEAD']);
    }
    for (const line of ['FOO / HTTP/1.1', 'GETT /api/stats HTTP/1.1', 'get / HTTP/1.1', 'G\0T / HTTP/1.1'])
      expect(refusal(await rawRequest(p, `${line}\r\nHost: ${auth.host}\r\n\r\n`), 400).message).toMatch(
        /^malformed request/,
      );
    const connect = await rawRequest(p, `CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n`);
    expect(refusal(connect, 405).message).toBe('CONNECT is not supported');
    await legit();
  });

  it('answers any request target, however malformed, without going down', async () => {
    const { server, host, legit } = await serve();
    const target = fc.oneof(
      fc.constantFrom(
        'http://[/', // this one used to throw in the handler and end the process
        '//[',
        'http://',
        'http://a:b@[::1',
        '*',
        '/%',
        '/%zz',
        '/api/%E0%A4%A',
        '//evil.example/api/stats',
        'http://evil.example/api/stats',
        '/api/__proto__',
        '/api/constructor',
        '/api/../api/stats',
        '/api/stats/../../etc/passwd',
      ),
      fc
        .tuple(
          fc.constantFrom('', '/', '//', '/api/', 'http://', 'http://[', 'https://127.0.0.1/'),
          fc.stringMatching(/^[\x21-\x7e]{0,60}$/),
        )
        .map(([a, b]) => a + b),
    );
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(target, async (t) => {
        const reply = await rawRequest(
          server.port,
          `GET ${t} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
        );
        answered++;
        // No token was sent: whatever the target, a refusal (never a 500, never silence).
        expect([400, 401, 403, 404, 405]).toContain(reply.status);
        refusal(reply, reply.status);
      }),
      { numRuns: 200, seed: 4013 },
    );
    expect(answered).toBe(200);
    await legit();
  });

  it(`holds at most ${MAX_EVENT_STREAMS} event streams, answers the next with 503, and frees a slot when one closes`, async () => {
    const { server, host, legit } = await serve();
    const open = () => openStream(server.port, `?token=${server.token}`, { host });
    const held = [];
    for (let i = 0; i < MAX_EVENT_STREAMS; i++) held.push(await open());
    expect(held.map((s) => s.res.statusCode)).toEqual(Array(MAX_EVENT_STREAMS).fill(200));
    const extra = await open();
    const error = refusal(await extra.ended, 503);
    expect(error.message).toMatch(new RegExp(`at most ${MAX_EVENT_STREAMS}`));
    expect(extra.res.headers['retry-after']).toBe('5');
    await legit(); // the API is not part of the bound
    held.pop()!.req.destroy();
    // The server notices the close on its next turn; a retry (as EventSource does) gets the slot.
    for (;;) {
      const again = await open();
      if (again.res.statusCode === 200) break;
      expect(again.res.statusCode).toBe(503);
      await new Promise((r) => setTimeout(r, 20));
    }
    await legit();
  });
});
