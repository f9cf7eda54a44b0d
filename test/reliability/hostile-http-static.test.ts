/**
 * `semaforo serve`'s static files under path traversal: only files inside its folder, whatever the
 * spelling or symlinks, and a 404 when a file vanishes between lookup and send.
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveStatic, sendStatic } from '../../electron/server/static-files.ts';
import { rawRequest, request } from '../server/http-client.ts';
import { serve, refusal, staticSite } from './hostile-http-setup.ts';

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
