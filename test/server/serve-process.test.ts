/**
 * `semaforo serve` as a process: its first line (the dashboard URL with the token), a clean stop
 * on SIGTERM, and with --no-work still reporting other processes' writes as change events.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOKEN_FILE } from '../../electron/server/token.ts';
import { spawnNode, tempDir, testEngine, waitFor } from '../helpers.ts';
import { BIN } from '../cli/cli-helpers.ts';
import { dashboardOf, request } from './http-client.ts';

describe('semaforo serve as a process', () => {
  it('prints the dashboard URL with its token as the first line, and stops cleanly on SIGTERM', async () => {
    const dir = tempDir();
    const child = spawnNode([BIN, '--db', path.join(dir, 'queue.db'), 'serve', '--port', '0']);
    const { port, token: printed } = await dashboardOf(child);
    const token = fs.readFileSync(path.join(dir, TOKEN_FILE), 'utf8').trim();
    expect(printed).toBe(token);
    const r = await request(port, {
      method: 'POST',
      path: '/api/stats',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        host: `127.0.0.1:${port}`,
      },
      body: 'null',
    });
    expect(JSON.parse(r.body).value.counts.pending).toBe(0);
    child.kill('SIGTERM');
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
  });
});

describe('serve --no-work', () => {
  it('still reports writes made by other processes as change events', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'queue.db');
    const engine = await testEngine({ file, eventIntervalMs: 20 });
    const stop = engine.watchExternalChanges();
    const seen: boolean[] = [];
    engine.onChange((b) => seen.push(b.external));
    const other = await testEngine({ file });
    await other.enqueue({ kind: 'sleep', payload: { ms: 0 } });
    await waitFor(() => seen.includes(true), 'an external change event');
    stop();
  });
});
