/**
 * `semaforo serve` started in this process on a fresh queue, with a way to call its API as the
 * dashboard does; every server is closed after each test.
 */
import path from 'node:path';
import { afterEach } from 'vitest';
import { startServer, type RunningServer } from '../../electron/server/server.ts';
import { tempDir, testEngine } from '../helpers.ts';
import { request } from './http-client.ts';

export const servers: RunningServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

export async function serve(staticDir: string | null = null) {
  const dir = tempDir();
  const engine = await testEngine({ file: path.join(dir, 'queue.db') });
  const server = await startServer({ engine, port: 0, dataDir: dir, staticDir });
  servers.push(server);
  const call = (name: string, input?: unknown, headers: Record<string, string> = {}) =>
    request(server.port, {
      method: 'POST',
      path: `/api/${name}`,
      headers: {
        authorization: `Bearer ${server.token}`,
        'content-type': 'application/json',
        host: `127.0.0.1:${server.port}`,
        ...headers,
      },
      body: JSON.stringify(input ?? null),
    });
  return { server, engine, dir, call };
}
