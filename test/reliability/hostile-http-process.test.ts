/** The real `semaforo serve` process answers the nastiest requests and is still up, then stops cleanly. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exited, spawnNode, tempDir } from '../helpers.ts';
import { BIN } from '../cli/cli-helpers.ts';
import { dashboardOf, rawClient, rawRequest, request } from '../server/http-client.ts';
import { refusal, pourEndlessly } from './hostile-http-setup.ts';

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
