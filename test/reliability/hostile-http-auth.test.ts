/**
 * `semaforo serve` refuses who may not ask, on the API, the stream and the files: every token but
 * the exact one (401), foreign Host headers (DNS rebinding, 403), pages of other origins (403).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rawRequest, request } from '../server/http-client.ts';
import { serve, refusal, VALID_TASK, openStream, staticSite } from './hostile-http-setup.ts';

describe('serve: who may ask', () => {
  it('refuses every token but the exact one, in the header or (for the stream) the query, with 401', async () => {
    const { server, engine, host, legit } = await serve();
    const t = server.token;
    const given = fc.oneof(
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        `Bearer ${t}x`,
        `Bearer ${t.slice(1)}`,
        `Bearer ${t.toUpperCase()}`,
        `Bearer ${t} ${t}`,
        `Bearer\t${t.slice(0, 63)}`,
        `Basic ${Buffer.from(`semaforo:${t}`).toString('base64')}`,
        `Token ${t}`,
        t, // no scheme
      ),
      fc.stringMatching(/^[\x20-\x7e]{0,80}$/),
      fc.stringMatching(/^[0-9a-f]{64}$/).map((s) => `Bearer ${s}`),
    );
    const route = fc.constantFrom('stats', 'enqueue', 'events', 'query-token');
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(given, route, async (authorization, where) => {
        if (where === 'events') {
          // EventSource sends no headers: the stream takes the token in its query only.
          const token = authorization.replace(/^Bearer\s+/, '');
          if (token === t) return; // `t` without a scheme is the right token for the stream
          refused++;
          const s = await openStream(server.port, `?token=${encodeURIComponent(token)}`, {
            host,
            authorization: `Bearer ${t}`,
          });
          refusal(await s.ended, 401);
          return;
        }
        const r = await request(server.port, {
          method: 'POST',
          // A token in the query is for the stream only, never for the API.
          path: where === 'query-token' ? `/api/enqueue?token=${t}` : `/api/${where}`,
          headers: { host, 'content-type': 'application/json', authorization },
          body: where === 'stats' ? 'null' : VALID_TASK,
        });
        refused++;
        expect(refusal(r, 401).name).toBe('Unauthorized');
      }),
      { numRuns: 80, seed: 4011 },
    );
    expect(refused).toBeGreaterThan(70);
    expect((await engine.listTasks()).total).toBe(0);
    await legit();
  });

  it('refuses foreign Host headers (DNS rebinding) on the API, the stream and the files, with 403', async () => {
    const site = staticSite();
    const { server, engine, auth, json, legit } = await serve({ staticDir: site.dir });
    const p = server.port;
    const hosts = [
      `evil.example:${p}`,
      `127.0.0.1.evil.example:${p}`,
      `127.0.0.1:${p}.evil.example`,
      `localhost.:${p}`,
      '127.0.0.1', // no port: another server's
      `127.0.0.1:${p + 1}`,
      `[::1]:${p + 1}`,
      `0.0.0.0:${p}`,
      `127.1:${p}`,
      `2130706433:${p}`,
      `127.0.0.1:${p}@evil.example`,
      `user@127.0.0.1:${p}`,
    ];
    for (const host of hosts) {
      const api = await request(p, {
        method: 'POST',
        path: '/api/enqueue',
        headers: { ...json, host },
        body: VALID_TASK,
      });
      expect(refusal(api, 403).message).toMatch(/is not this server/);
      const s = await openStream(p, `?token=${server.token}`, { host });
      refusal(await s.ended, 403);
      refusal(await request(p, { path: '/', headers: { host } }), 403);
    }
    // Exactly one Host: none, or two (which one did a proxy check?), is a bad request.
    const twoHosts = `POST /api/stats HTTP/1.1\r\nHost: 127.0.0.1:${p}\r\nHost: evil.example\r\nAuthorization: ${auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\nnull`;
    expect(refusal(await rawRequest(p, twoHosts), 400).message).toBe('more than one Host header');
    const noHost = `POST /api/stats HTTP/1.1\r\nAuthorization: ${auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\nnull`;
    expect(refusal(await rawRequest(p, noHost), 400).message).toBe('missing Host header');
    expect((await engine.listTasks()).total).toBe(0);
    await legit();
  });

  it('refuses pages of other origins, and sandboxed ones (Origin: null), on the API and the stream', async () => {
    const { server, engine, json, legit } = await serve();
    const p = server.port;
    const origins = [
      'null',
      'http://evil.example',
      `http://127.0.0.1:${p}.evil.example`,
      `https://127.0.0.1:${p}`,
      `http://localhost:${p}`, // another name for us, but not the one this request's Host says
      `http://127.0.0.1:${p + 1}`,
      `http://127.0.0.1:${p}/`,
      'file://',
      `HTTP://127.0.0.1:${p}`,
    ];
    for (const origin of origins) {
      const api = await request(p, {
        method: 'POST',
        path: '/api/enqueue',
        headers: { ...json, origin },
        body: VALID_TASK,
      });
      expect(refusal(api, 403)).toMatchObject({
        name: 'Forbidden',
        message: expect.stringMatching(/origin/),
      });
      const s = await openStream(p, `?token=${server.token}`, { host: json.host, origin });
      refusal(await s.ended, 403);
    }
    expect((await engine.listTasks()).total).toBe(0);
    await legit();
  });
});
