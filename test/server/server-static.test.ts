/** `semaforo serve`'s static files: the renderer with a CSP, its brotli or gzip copies, nothing outside. */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { resolveStatic } from '../../electron/server/static-files.ts';
import { tempDir } from '../helpers.ts';
import { request } from './http-client.ts';
import { serve } from './serve-in-process.ts';

describe('semaforo serve: static files', () => {
  it('serves the renderer with a CSP and never a file outside its folder', async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, 'site', 'assets'), { recursive: true });
    fs.writeFileSync(path.join(root, 'site', 'index.html'), '<!doctype html><title>Semaforo</title>');
    fs.writeFileSync(path.join(root, 'site', 'assets', 'app.js'), 'console.log(1)');
    fs.writeFileSync(path.join(root, 'secret.txt'), 'do not serve');
    const { server } = await serve(path.join(root, 'site'));
    const host = { host: `127.0.0.1:${server.port}` };
    const index = await request(server.port, { headers: host });
    expect(index.status).toBe(200);
    expect(index.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(
      (await request(server.port, { path: '/assets/app.js', headers: host })).headers['content-type'],
    ).toMatch(/javascript/);
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/x%00.js'])
      expect((await request(server.port, { path: p, headers: host })).status).toBe(404);
    expect((await request(server.port, { headers: { host: 'evil.example' } })).status).toBe(403);
    expect(resolveStatic(path.join(root, 'site'), '/../secret.txt')).toBeNull();
  });

  it("sends the build's brotli or gzip copy to a client that takes it, the plain file to others", async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, 'assets'));
    const js = 'console.log("semaforo");\n'.repeat(200);
    fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>Semaforo</title>');
    fs.writeFileSync(path.join(root, 'assets', 'app.js'), js);
    fs.writeFileSync(path.join(root, 'assets', 'app.js.br'), zlib.brotliCompressSync(js));
    fs.writeFileSync(path.join(root, 'assets', 'app.js.gz'), zlib.gzipSync(js));
    const { server } = await serve(root);
    const get = (encoding?: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const headers: Record<string, string> = { host: `127.0.0.1:${server.port}` };
        if (encoding !== undefined) headers['accept-encoding'] = encoding;
        http
          .get({ host: '127.0.0.1', port: server.port, path: '/assets/app.js', headers }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
    const br = await get('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(js);
    const gz = await get('gzip;q=1, br;q=0');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).toString()).toBe(js);
    const plain = await get();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(js);
    expect(plain.headers['content-type']).toMatch(/javascript/);
  });
});
