/**
 * Serves the built renderer: only files inside its folder, never a path that climbs out; text files
 * precompressed (brotli or gzip) when the build made the copies and the client takes them.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ServerResponse } from 'node:http';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The file for a URL path inside `root`, or null when it escapes `root` or does not exist. */
export function resolveStatic(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const rel = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  const file = path.resolve(root, rel);
  const rootWithSep = path.resolve(root) + path.sep;
  if (!file.startsWith(rootWithSep)) return null;
  try {
    const real = fs.realpathSync(file);
    if (!real.startsWith(fs.realpathSync(root) + path.sep)) return null; // a symlink out
    return fs.statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/** Whether an Accept-Encoding header accepts `coding` (listed, and not with q=0). */
export function acceptsEncoding(header: string | undefined, coding: 'br' | 'gzip'): boolean {
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name !== coding) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return q === undefined || Number(q) > 0;
  }
  return false;
}

/**
 * The copy of `file` to send: the build's brotli or gzip twin (vite.config.ts writes them) when
 * the client takes it, else the file itself.
 */
function pickEncoding(file: string, accept: string | undefined): { path: string; encoding?: string } {
  for (const [coding, ext] of [
    ['br', '.br'],
    ['gzip', '.gz'],
  ] as const) {
    if (acceptsEncoding(accept, coding) && fs.existsSync(file + ext))
      return { path: file + ext, encoding: coding };
  }
  return { path: file };
}

export function sendStatic(res: ServerResponse, file: string, method: string): void {
  // The file can vanish or change between resolveStatic and here (`npm run build` empties the
  // folder while serve runs); a throw or an unhandled stream error here would end the process.
  const chosen = pickEncoding(file, res.req.headers['accept-encoding']);
  let size: number;
  try {
    size = fs.statSync(chosen.path).size;
  } catch {
    return notFound(res);
  }
  const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
  const immutable = /\/assets\//.test(file.split(path.sep).join('/'));
  const headers = {
    'content-type': type,
    'content-length': size,
    ...(chosen.encoding ? { 'content-encoding': chosen.encoding } : {}),
    vary: 'accept-encoding',
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
  if (method === 'HEAD') {
    res.writeHead(200, headers);
    return void res.end();
  }
  const stream = fs.createReadStream(chosen.path);
  stream.once('open', () => {
    res.writeHead(200, headers);
    stream.pipe(res);
  });
  stream.once('error', () => {
    if (res.headersSent)
      res.destroy(); // a short body must not pass for the whole file
    else notFound(res);
  });
  res.once('close', () => stream.destroy());
}

function notFound(res: ServerResponse): void {
  const text = JSON.stringify({ error: { name: 'HttpError', message: 'no such file' } });
  res.writeHead(404, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}
