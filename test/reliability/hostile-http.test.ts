/**
 * `semaforo serve` under hostile requests, on a loopback port: wrong tokens, foreign Host and
 * Origin headers, bodies too large or endless, slow clients, malformed JSON and request targets,
 * path traversal, too many event streams, odd methods. Each is refused with the right status and
 * a JSON error, nothing is written, and the next legitimate request is served.
 * (test/server/server.test.ts has the basic refusals; these go further and do not repeat them.)
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { REQUEST_NAMES } from '../../shared/api.ts';
import { startServer, type RunningServer, type ServerOptions } from '../../electron/server/server.ts';
import { MAX_EVENT_STREAMS } from '../../electron/server/event-stream.ts';
import { resolveStatic, sendStatic } from '../../electron/server/static-files.ts';
import { exited, spawnNode, tempDir, testEngine } from '../helpers.ts';
import { BIN } from '../cli/cli-helpers.ts';
import {
  dashboardOf,
  parseReply,
  rawClient,
  rawRequest,
  request,
  type RawClient,
} from '../server/http-client.ts';

const servers: RunningServer[] = [];
const streams: http.ClientRequest[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.destroy();
  for (const s of servers.splice(0)) await s.close();
});

async function serve(options: Partial<ServerOptions> = {}) {
  const dir = tempDir();
  const engine = await testEngine({ file: path.join(dir, 'queue.db') });
  const server = await startServer({ engine, port: 0, dataDir: dir, staticDir: null, ...options });
  servers.push(server);
  const host = `127.0.0.1:${server.port}`;
  const auth = { host, authorization: `Bearer ${server.token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  /** What the dashboard asks; after every attack the server must still answer it. */
  const legit = async () => {
    const r = await request(server.port, { method: 'POST', path: '/api/stats', headers: json, body: 'null' });
    expect(r.status).toBe(200);
    return JSON.parse(r.body).value as { counts: { pending: number } };
  };
  return { server, engine, host, auth, json, legit };
}

interface AnyReply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** The reply is a refusal with `status` and a JSON error {name, message}; returns the error. */
function refusal(reply: AnyReply, status: number): { name: string; message: string } {
  expect(reply.status, reply.body).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  const { error } = JSON.parse(reply.body) as { error: { name: string; message: string } };
  expect(error).toMatchObject({ name: expect.any(String), message: expect.stringMatching(/\S/) });
  return error;
}

const VALID_TASK = JSON.stringify({ kind: 'sleep', name: 'intruder', payload: { ms: 0 } });

/** Writes `piece` again and again, as fast as the socket takes it, until the server closes it. */
function pourEndlessly(socket: net.Socket, piece: string): void {
  const pour = () => {
    while (!socket.destroyed && socket.write(piece)) {
      /* the socket buffers until the kernel's are full; `drain` resumes */
    }
  };
  socket.on('drain', pour);
  pour();
}

/** Sends `text` one byte at a time, every `everyMs`, until done or the server closes the socket. */
function trickle(socket: net.Socket, text: string, everyMs = 20): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]!);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

interface Stream {
  res: http.IncomingMessage;
  req: http.ClientRequest;
  /** what arrived so far */
  body(): string;
  /** the answer as a reply, once the server has ended it (a refusal) */
  ended: Promise<AnyReply>;
}

/** An event-stream request; resolves once the server has answered its headers. */
function openStream(port: number, query: string, headers: Record<string, string>): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: `/api/events${query}`, headers, agent: false });
    streams.push(req);
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      // Listened to before anyone awaits: a short answer can end before the caller's next line.
      const ended = new Promise<AnyReply>((done) =>
        res.once('end', () => done({ status: res.statusCode ?? 0, body, headers: res.headers })),
      );
      resolve({ res, req, body: () => body, ended });
    });
  });
}

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

describe('serve: bodies and slow clients', () => {
  it('answers a body it will not read (too large, chunked, endless, refused) at once, then closes', async () => {
    // A short request timeout: if the server drained an endless body instead of closing, the
    // 408 it would send once the timeout hit shows up after the first answer.
    const { server, engine, host, legit } = await serve({
      maxBodyBytes: 64 * 1024,
      headersTimeoutMs: 2_000,
      requestTimeoutMs: 4_000,
    });
    const head = (headers: string) => `POST /api/enqueue HTTP/1.1\r\nHost: ${host}\r\n${headers}\r\n`;
    const auth = `Authorization: Bearer ${server.token}\r\n`;
    const chunk = `1000\r\n${'x'.repeat(0x1000)}\r\n`;
    const cases: { name: string; headers: string; piece: string; status: number }[] = [
      {
        name: 'chunked without Content-Length, never ending',
        headers: `${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n`,
        piece: chunk,
        status: 413,
      },
      {
        name: 'a declared 10 GB body',
        headers: `${auth}Content-Type: application/json\r\nContent-Length: 10000000000\r\n`,
        piece: 'x'.repeat(0x1000),
        status: 413,
      },
      {
        name: 'no token, endless chunked body',
        headers: `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n`,
        piece: chunk,
        status: 401,
      },
      {
        name: 'wrong content type, endless chunked body',
        headers: `${auth}Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n`,
        piece: chunk,
        status: 415,
      },
    ];
    for (const c of cases) {
      const client = rawClient(server.port, head(c.headers));
      pourEndlessly(client.socket, c.piece);
      const reply = await client.reply();
      refusal(reply, c.status);
      expect(reply.headers.connection, c.name).toBe('close');
      const all = await client.closed;
      expect(parseReply(all)?.rest, `${c.name}: nothing after the answer`).toBe('');
    }
    // A finite chunked body just over the limit is answered 413 too (it used to be a reset).
    const over = rawClient(
      server.port,
      head(`${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n`) +
        chunk.repeat(17) +
        '0\r\n\r\n',
    );
    expect(refusal(await over.reply(), 413).message).toMatch(/over 65536 bytes/);
    expect((await engine.listTasks()).total).toBe(0);
    await legit();
  });

  it('cuts off slowloris clients with 408 while serving everyone else, and leaves event streams open', async () => {
    const { server, engine, host, json, legit } = await serve({
      headersTimeoutMs: 400,
      requestTimeoutMs: 800,
    });
    const stream = await openStream(server.port, `?token=${server.token}`, { host });
    expect(stream.res.statusCode).toBe(200);

    const post = `POST /api/enqueue HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\n`;
    const attackers: Record<string, RawClient> = {
      // Headers one byte at a time: 10 kB of them would take minutes.
      'headers trickled byte by byte': rawClient(server.port),
      // Headers complete, then 10 of the 100 promised body bytes, then silence.
      'a body that never finishes': rawClient(server.port, `${post}Content-Length: 100\r\n\r\n{"kind":"s`),
      // A chunk every 20 ms forever: bytes keep coming, but the request never completes; and
      // it goes on sending after the server's answer and FIN, so only the server can close.
      'a chunked body trickled forever': rawClient(server.port, `${post}Transfer-Encoding: chunked\r\n\r\n`, {
        ignoreFin: true,
      }),
      // Connects and says nothing.
      'a silent connection': rawClient(server.port),
    };
    trickle(
      attackers['headers trickled byte by byte']!.socket,
      `GET / HTTP/1.1\r\nHost: ${host}\r\nX-Pad: ${'a'.repeat(10_000)}\r\n\r\n`,
    );
    const forever = attackers['a chunked body trickled forever']!.socket;
    const drip = setInterval(() => forever.write('1\r\n \r\n'), 20);
    forever.once('close', () => clearInterval(drip));

    // Meanwhile everyone else is served.
    for (let i = 0; i < 3; i++) await legit();
    const enq = await request(server.port, {
      method: 'POST',
      path: '/api/enqueue',
      headers: json,
      body: VALID_TASK,
    });
    expect(enq.status).toBe(200);

    for (const [name, client] of Object.entries(attackers)) {
      const all = await client.closed;
      const reply = parseReply(all);
      expect(reply, `${name}: ${JSON.stringify(all.slice(0, 200))}`).not.toBeNull();
      expect(refusal(reply!, 408).message, name).toMatch(/took too long/);
    }
    // The stream outlived the request timeout (its request was complete; only answers go on).
    const before = stream.body().length;
    await engine.enqueue({ kind: 'sleep', payload: { ms: 0 } });
    await new Promise<void>((resolve) =>
      stream.res.on('data', () => {
        if (stream.body().slice(before).includes('event: changed')) resolve();
      }),
    );
    expect(stream.req.destroyed).toBe(false);
    expect((await legit()).counts.pending).toBe(2);
  });

  it('refuses malformed and hostile JSON bodies with 400 naming the problem, never 500', async () => {
    const { server, json, legit } = await serve();
    const body = fc.oneof(
      fc.constantFrom(
        '{nope',
        '{"a":',
        '{}x',
        '\uFEFF{}',
        'NaN',
        '1e400',
        "{'kind':'sleep'}",
        '{"kind":"sleep","payload":{"ms":1e400}}',
        `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
        `{"kind":"sleep","payload":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`,
        '{"__proto__":{"polluted":true}}',
        '{"kind":"sleep","payload":{"ms":0},"__proto__":{"polluted":true}}',
        '{"kind":"sleep","name":"\\ud800","payload":{"ms":0}}',
        '{"kind":"sleep","unique":"k\\udfff","payload":{"ms":0}}',
        '   ',
        '[]',
        'true',
        '0',
        '"enqueue"',
      ),
      fc.string({ maxLength: 200 }),
      fc.json({ maxDepth: 4 }),
      // Bytes that are not UTF-8 at all.
      fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b) => Buffer.from(b)),
    );
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...REQUEST_NAMES), body, async (name, text) => {
        const r = await request(server.port, {
          method: 'POST',
          path: `/api/${name}`,
          headers: json,
          body: text,
        });
        seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
        expect([200, 400, 404, 409]).toContain(r.status);
        if (r.status === 200) return void expect(JSON.parse(r.body)).toHaveProperty('value');
        const error = refusal(r, r.status);
        if (r.status === 400) expect(error.name).toBe('ValidationError');
      }),
      { numRuns: 150, seed: 4012 },
    );
    expect(seen.get(400)).toBeGreaterThan(50);
    expect(Object.prototype).not.toHaveProperty('polluted');
    for (const type of [
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded', // what a cross-site <form> can send
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'text/json',
      'application/javascript',
    ]) {
      const headers: Record<string, string> = { ...json };
      if (type === undefined) delete headers['content-type'];
      else headers['content-type'] = type;
      const r = await request(server.port, {
        method: 'POST',
        path: '/api/enqueue',
        headers,
        body: VALID_TASK,
      });
      expect(refusal(r, 415).message).toMatch(/application\/json/);
    }
    await legit();
  });
});

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

/** A dashboard folder with a secret beside it and symlinks pointing out of it. */
function staticSite() {
  const root = tempDir();
  const dir = path.join(root, 'site');
  fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
  const index = '<!doctype html><title>Semaforo</title>';
  const app = 'console.log("app")';
  fs.writeFileSync(path.join(dir, 'index.html'), index);
  fs.writeFileSync(path.join(dir, 'assets', 'app.js'), app);
  fs.writeFileSync(path.join(root, 'secret.txt'), 'TOP-SECRET');
  fs.symlinkSync('../secret.txt', path.join(dir, 'leak.txt'));
  fs.symlinkSync('..', path.join(dir, 'up'));
  fs.symlinkSync('/etc', path.join(dir, 'abs'));
  fs.symlinkSync(path.join(root, 'secret.txt'), path.join(dir, 'abs-leak.txt'));
  return { root, dir, index, app };
}

describe('serve: static files under traversal', () => {
  it('serves only files inside its folder, whatever the spelling of the path', async () => {
    const site = staticSite();
    const { server, host } = await serve({ staticDir: site.dir });
    const get = (p: string) =>
      rawRequest(server.port, `GET ${p} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    /** Never the secret or /etc/passwd; a 200 only for a file of the site (or its page fallback). */
    const onlyOurs = (r: Awaited<ReturnType<typeof get>>, what: string) => {
      expect(r.body, what).not.toContain('TOP-SECRET');
      expect(r.body, what).not.toMatch(/root:.*:0:0:/);
      if (r.status === 200) expect([site.index, site.app], what).toContain(r.body);
      else {
        expect([400, 404], what).toContain(r.status);
        refusal(r, r.status);
      }
    };
    for (const p of [
      '/leak.txt', // symlink to ../secret.txt
      '/abs-leak.txt', // absolute symlink to it
      '/up/secret.txt', // through a symlinked folder
      '/abs/passwd', // no extension: at most the page fallback answers
      '/..%5csecret.txt', // backslash, encoded
      '/%2e%2e%5csecret.txt',
      '/..\\secret.txt', // backslash, raw
      '/%c0%ae%c0%ae/secret.txt', // overlong UTF-8 dots
      '/%252e%252e/secret.txt', // double encoding
      '/%2e%2e%2fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/secret.txt%00.js',
      `/${path.join(site.root, 'secret.txt')}`, // an absolute path
      `/%2f${encodeURIComponent(path.join(site.root, 'secret.txt').slice(1))}`,
      '/%2fetc%2fpasswd.txt',
    ]) {
      onlyOurs(await get(p), p);
    }
    const segment = fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '%2E%2E',
      '.%2e',
      '%2e.',
      '..%2f',
      '%2f',
      '%5c',
      '..%5c',
      '\\',
      '..\\',
      '%00',
      '%252e%252e',
      '%c0%ae',
      'secret.txt',
      'leak.txt',
      'abs-leak.txt',
      'up',
      'abs',
      'passwd',
      'etc',
      'assets',
      'app.js',
      'index.html',
      '',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/', '//', '/./', '/assets/'),
        fc.array(segment, { maxLength: 6 }),
        async (lead, parts) => {
          const p = lead + parts.join('/');
          onlyOurs(await get(p), p);
        },
      ),
      { numRuns: 200, seed: 4014 },
    );
  });

  it('answers 404 when a file vanishes between lookup and send (a rebuild while serving)', async () => {
    const site = staticSite();
    const file = resolveStatic(site.dir, '/assets/app.js')!;
    expect(file).not.toBeNull();
    fs.rmSync(file);
    const plain = http.createServer((_req, res) => sendStatic(res, file, 'GET'));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    try {
      const port = (plain.address() as net.AddressInfo).port;
      refusal(await request(port), 404);
      refusal(await request(port), 404); // still up
    } finally {
      plain.close();
    }
  });
});

describe('the real `semaforo serve` process', () => {
  it('answers the nastiest requests and is still up, serving, and stops cleanly', async () => {
    const dir = tempDir();
    const child = spawnNode([BIN, '--db', path.join(dir, 'queue.db'), 'serve', '--port', '0', '--no-work']);
    const { port: p, token } = await dashboardOf(child);
    const host = `127.0.0.1:${p}`;
    const auth = `Authorization: Bearer ${token}\r\n`;
    expect(refusal(await rawRequest(p, `GET http://[/ HTTP/1.1\r\nHost: ${host}\r\n\r\n`), 400).message).toBe(
      'malformed request target',
    );
    refusal(await rawRequest(p, `FOO / HTTP/1.1\r\nHost: ${host}\r\n\r\n`), 400);
    refusal(await rawRequest(p, `CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: ${host}\r\n\r\n`), 405);
    refusal(await rawRequest(p, `GET / HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example\r\n\r\n`), 400);
    const nullOrigin = `POST /api/stats HTTP/1.1\r\nHost: ${host}\r\n${auth}Origin: null\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\nnull`;
    refusal(await rawRequest(p, nullOrigin), 403);
    const big = rawClient(
      p,
      `POST /api/enqueue HTTP/1.1\r\nHost: ${host}\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    pourEndlessly(big.socket, `1000\r\n${'x'.repeat(0x1000)}\r\n`);
    refusal(await big.reply(), 413);
    await big.closed;
    const ok = await request(p, {
      method: 'POST',
      path: '/api/stats',
      headers: { host, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: 'null',
    });
    expect(JSON.parse(ok.body).value.counts.pending).toBe(0);
    expect(child.exitCode).toBeNull();
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });
});
