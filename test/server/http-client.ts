/**
 * HTTP clients for the server tests: a plain request for what browsers send, and a raw socket for
 * what attackers send (bytes node's own client refuses to write, slow trickles, endless bodies).
 */
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';

export interface Reply {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** A raw request, so tests can send what browsers and attackers send (Host, Origin, bad bodies). */
export function request(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: options.headers,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface RawReply {
  status: number;
  /** lower-cased names */
  headers: Record<string, string>;
  body: string;
  /** bytes the server sent after this reply (a second status line would show here) */
  rest: string;
}

/** The first complete HTTP/1.1 reply in `text` (bytes as latin1; Content-Length bodies only), or null. */
export function parseReply(text: string): RawReply | null {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (!m) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? NaN);
  if (!Number.isFinite(length)) return null; // streamed (chunked) replies are not parsed here
  // `text` holds one character per byte (latin1), so lengths here are byte counts.
  const bodyStart = end + 4;
  if (text.length - bodyStart < length) return null;
  const body = Buffer.from(text.slice(bodyStart, bodyStart + length), 'latin1').toString('utf8');
  return { status: Number(m[1]), headers, body, rest: text.slice(bodyStart + length) };
}

export interface RawClient {
  socket: net.Socket;
  /** everything received so far */
  received(): string;
  /** resolves with the first complete reply */
  reply(): Promise<RawReply>;
  /** resolves with everything received once the server has closed the connection */
  closed: Promise<string>;
}

/**
 * A socket to the server; `send` is written as soon as it connects. `ignoreFin`: keep the
 * connection (and keep sending) after the server has said it is done, as a hostile client may.
 */
export function rawClient(port: number, send?: string | Buffer, { ignoreFin = false } = {}): RawClient {
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: ignoreFin });
  let text = '';
  const waiting: (() => void)[] = [];
  socket.on('data', (c: Buffer) => {
    text += c.toString('latin1');
    for (const w of waiting.splice(0)) w();
  });
  // A server that closes while we still write may reset the connection; what it said still counts.
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  if (send !== undefined) socket.write(send);
  return {
    socket,
    received: () => text,
    reply: () =>
      new Promise<RawReply>((resolve, reject) => {
        const check = () => {
          const r = parseReply(text);
          if (r) return resolve(r);
          if (socket.destroyed)
            return reject(new Error(`connection closed without a full reply: ${JSON.stringify(text)}`));
          waiting.push(check);
        };
        socket.once('close', check);
        check();
      }),
    closed,
  };
}

/** One raw exchange: send `text`, return the reply. The socket is closed afterwards. */
export async function rawRequest(port: number, text: string | Buffer): Promise<RawReply> {
  const c = rawClient(port, text);
  try {
    return await c.reply();
  } finally {
    c.socket.destroy();
  }
}

/**
 * The port and token from the first line `semaforo serve` prints
 * (`Dashboard: http://127.0.0.1:PORT/#token=…`); fails if the line is anything else or it exits.
 */
export function dashboardOf(child: ChildProcess): Promise<{ port: number; token: string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (!out.includes('\n')) return;
      const line = out.split('\n')[0]!;
      const m = /^Dashboard: http:\/\/127\.0\.0\.1:(\d+)\/#token=([0-9a-f]{64})$/.exec(line);
      if (m) resolve({ port: Number(m[1]), token: m[2]! });
      else reject(new Error(`unexpected first line from serve: ${line}`));
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
}
