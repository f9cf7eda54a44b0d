/**
 * What the hostile-request tests of `semaforo serve` share: a server on a loopback port with a
 * legitimate request to check it still answers, refusal checks, hostile ways to send, event
 * streams, and a static folder with symlinks out of it; every server and stream is closed after
 * each test. (test/server/server-api.test.ts has the basic refusals; the hostile-http tests go
 * further and do not repeat them.)
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { startServer, type RunningServer, type ServerOptions } from '../../electron/server/server.ts';
import { tempDir, testEngine } from '../helpers.ts';
import { request } from '../server/http-client.ts';

const servers: RunningServer[] = [];
const streams: http.ClientRequest[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.destroy();
  for (const s of servers.splice(0)) await s.close();
});

export async function serve(options: Partial<ServerOptions> = {}) {
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
export function refusal(reply: AnyReply, status: number): { name: string; message: string } {
  expect(reply.status, reply.body).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  const { error } = JSON.parse(reply.body) as { error: { name: string; message: string } };
  expect(error).toMatchObject({ name: expect.any(String), message: expect.stringMatching(/\S/) });
  return error;
}

export const VALID_TASK = JSON.stringify({ kind: 'sleep', name: 'intruder', payload: { ms: 0 } });

/** Writes `piece` again and again, as fast as the socket takes it, until the server closes it. */
export function pourEndlessly(socket: net.Socket, piece: string): void {
  const pour = () => {
    while (!socket.destroyed && socket.write(piece)) {
      /* the socket buffers until the kernel's are full; `drain` resumes */
    }
  };
  socket.on('drain', pour);
  pour();
}

/** Sends `text` one byte at a time, every `everyMs`, until done or the server closes the socket. */
export function trickle(socket: net.Socket, text: string, everyMs = 20): void {
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
export function openStream(port: number, query: string, headers: Record<string, string>): Promise<Stream> {
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

/** A dashboard folder with a secret beside it and symlinks pointing out of it. */
export function staticSite() {
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
