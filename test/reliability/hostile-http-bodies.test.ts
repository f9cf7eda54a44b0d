/**
 * `semaforo serve` under hostile bodies and slow clients: bodies too large, chunked or endless
 * answered at once, slowloris clients cut off with 408 while others are served, malformed and
 * hostile JSON refused with 400, never 500.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REQUEST_NAMES } from '../../shared/api.ts';
import { parseReply, rawClient, request, type RawClient } from '../server/http-client.ts';
import { serve, refusal, VALID_TASK, pourEndlessly, trickle, openStream } from './hostile-http-setup.ts';

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
