import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../electron/server/server.ts';
import { checkHost, checkOrigin, checkToken, loopbackHosts } from '../../electron/server/guard.ts';
import { resolveStatic } from '../../electron/server/static-files.ts';
import { TOKEN_FILE } from '../../electron/server/token.ts';
import { spawnNode, tempDir, testEngine, waitFor } from '../helpers.ts';
import { BIN } from '../cli/cli-helpers.ts';
import { dashboardOf, request } from './http-client.ts';

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function serve(staticDir: string | null = null) {
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

describe('semaforo serve: the JSON API', () => {
  it('answers contract requests with {value} and validation failures with 400 naming the field', async () => {
    const { call, dir } = await serve();
    const enq = await call('enqueue', { kind: 'sleep', name: 'nap', payload: { ms: 0 } });
    expect(enq.status).toBe(200);
    expect(JSON.parse(enq.body).value.task).toMatchObject({ id: 1, name: 'nap', status: 'pending' });
    const stats = JSON.parse((await call('stats')).body).value;
    expect(stats.counts.pending).toBe(1);

    const bad = await call('enqueue', { kind: 'sleep', priority: 42, payload: { ms: 0 } });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toMatchObject({
      name: 'ValidationError',
      issues: [{ path: 'priority', message: expect.stringMatching(/0 to 9/) }],
    });
    expect(JSON.parse((await call('queueInfo')).body).value).toEqual({
      backend: 'sqlite',
      location: path.join(dir, 'queue.db'),
    });
    // A task's named resources, in either spelling; a bad one refused naming the field.
    const used = await call('enqueue', { kind: 'sleep', uses: 'nas,cpu:2', payload: { ms: 0 } });
    expect(JSON.parse(used.body).value.task.uses).toEqual([
      { resource: 'cpu', weight: 2 },
      { resource: 'nas', weight: 1 },
    ]);
    const badUse = await call('enqueue', { kind: 'sleep', uses: [{ resource: 'cpu', weight: 0 }] });
    expect(badUse.status).toBe(400);
    expect(JSON.parse(badUse.body).error.issues).toEqual([
      { path: 'uses', message: expect.stringMatching(/weight of cpu must be a whole number/) },
    ]);
    expect(JSON.parse((await call('workers')).body).value).toEqual([]);
    expect(JSON.parse((await call('groupStats')).body).value).toEqual([
      {
        group: 'default',
        // the task enqueued above, and the one that uses named resources
        waiting: 2,
        oldestWaitingSince: expect.any(Number),
        finished: 0,
        avgMs: null,
        p95Ms: null,
      },
    ]);
    expect((await call('groupStats', { windowMs: 1 })).status).toBe(400);
    const extra = await call('workers', { host: 'x' });
    expect(extra.status).toBe(400);
    expect(JSON.parse(extra.body).error).toMatchObject({ name: 'ValidationError' });
    const missing = await call('getTask', { id: 99 });
    expect(missing.status).toBe(404);
    expect((await call('noSuchRequest')).status).toBe(404);
  });

  it('acts by filter: refuses a filter it does not know with 400 naming the field, answers the count it acted on', async () => {
    const { call } = await serve();
    for (let i = 0; i < 3; i++)
      await call('enqueue', { kind: 'sleep', group: i < 2 ? 'g' : 'h', payload: { ms: 0 } });
    const filter = { group: 'g', status: ['pending'] };
    const bad = await call('actOnMatching', { action: 'cancel', filter: { ...filter, owner: 'x' }, max: 10 });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.issues[0]).toMatchObject({ path: 'filter' });
    const tooMany = await call('actOnMatching', { action: 'cancel', filter, max: 100_001 });
    expect(JSON.parse(tooMany.body).error.issues[0]).toMatchObject({ path: 'max' });
    const badBound = await call('actOnMatching', { action: 'cancel', filter, max: 10, throughId: 0 });
    expect(JSON.parse(badBound.body).error.issues[0]).toMatchObject({ path: 'throughId' });
    const dry = await call('actOnMatching', { action: 'cancel', filter, max: 10, dryRun: true });
    expect(JSON.parse(dry.body).value).toEqual({ count: 2, stopping: 0, lastId: 2 });
    // A task that begins to match after the dry run is above its last id, so left alone.
    await call('enqueue', { kind: 'sleep', group: 'g', payload: { ms: 0 } });
    const done = await call('actOnMatching', { action: 'cancel', filter, max: 10, throughId: 2 });
    expect(JSON.parse(done.body).value).toEqual({ count: 2, stopping: 0, lastId: 2 });
    const stats = JSON.parse((await call('stats')).body).value;
    expect(stats.counts).toMatchObject({ pending: 2, cancelled: 2 });
  });

  it("serves the dashboard's schedule requests: preview, create, refuse an invalid cron writing nothing, run now", async () => {
    const { call } = await serve();
    const preview = JSON.parse(
      (await call('previewSchedule', { cron: '0 9 31 * *', timezone: 'UTC' })).body,
    ).value;
    expect(preview.times.map((t: number) => new Date(t).getUTCDate())).toEqual([31, 31, 31, 31, 31]);
    const badPreview = await call('previewSchedule', { cron: '61 * * * *' });
    expect(badPreview.status).toBe(400);
    expect(JSON.parse(badPreview.body).error.issues[0]).toMatchObject({
      path: 'cron',
      message: expect.stringMatching(/invalid minute: 61 \(0-59\)/),
    });
    const task = { kind: 'sleep', payload: { ms: 0 } };
    const bad = await call('createSchedule', { name: 'x', cron: '61 * * * *', task });
    expect(bad.status).toBe(400);
    expect(JSON.parse((await call('listSchedules')).body).value).toEqual([]);
    const created = await call('createSchedule', { name: 'x', everyMs: 60_000, overlap: 'skip', task });
    expect(created.status).toBe(200);
    expect(JSON.parse(created.body).value).toMatchObject({ name: 'x', everyMs: 60_000, enabled: true });
    const run = JSON.parse((await call('runScheduleNow', { name: 'x' })).body).value;
    expect(run.task).toMatchObject({ name: 'x', status: 'pending' });
    const listed = JSON.parse((await call('listSchedules')).body).value;
    expect(listed[0]).toMatchObject({ lastTaskId: run.task.id, lastTaskStatus: 'pending' });
    expect((await call('removeSchedule', { name: 'x' })).status).toBe(200);
    expect((await call('getSchedule', { name: 'x' })).status).toBe(404);
  });

  it('refuses requests without the token, with a wrong Host, or from another Origin, and keeps serving', async () => {
    const { server, call } = await serve();
    expect((await call('stats', undefined, { authorization: '' })).status).toBe(401);
    expect((await call('stats', undefined, { authorization: 'Bearer nope' })).status).toBe(401);
    // DNS rebinding: a hostile name resolved to 127.0.0.1 still sends its own Host.
    expect((await call('stats', undefined, { host: `evil.example:${server.port}` })).status).toBe(403);
    expect((await call('stats', undefined, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await call('stats', undefined, { origin: `http://127.0.0.1:${server.port}` })).status).toBe(200);
    expect((await call('stats', undefined, { host: `localhost:${server.port}` })).status).toBe(200);
  });

  it('trades the token for an HttpOnly SameSite=Strict session cookie that stands for it, on this port only', async () => {
    const { server, call } = await serve();
    const opened = await call('session');
    expect(opened.status).toBe(200);
    const setCookie = String(opened.headers['set-cookie']);
    expect(setCookie).toMatch(
      new RegExp(`^semaforo_${server.port}=[0-9a-f]{64}; Path=/; Max-Age=\\d+; HttpOnly; SameSite=Strict$`),
    );
    expect(setCookie).not.toContain(server.token);
    const cookie = setCookie.split(';')[0]!;
    expect((await call('stats', undefined, { authorization: '', cookie })).status).toBe(200);
    expect((await call('session', undefined, { authorization: '', cookie })).status).toBe(200);
    // The Host and Origin checks still apply to a cookie.
    expect(
      (await call('stats', undefined, { authorization: '', cookie, origin: 'https://evil.example' })).status,
    ).toBe(403);
    // Another port's cookie, or a wrong value, is no session here.
    const other = `semaforo_${server.port + 1}=${cookie.split('=')[1]}`;
    expect((await call('stats', undefined, { authorization: '', cookie: other })).status).toBe(401);
    expect((await call('session', undefined, { authorization: '' })).status).toBe(401);
    const events = await new Promise<http.IncomingMessage>((resolve) =>
      http.get({ host: '127.0.0.1', port: server.port, path: '/api/events', headers: { cookie } }, resolve),
    );
    expect(events.statusCode).toBe(200);
    events.destroy();
  });

  it('answers a batch item by item, each validated and refused on its own', async () => {
    const { call } = await serve();
    await call('enqueue', { kind: 'sleep', name: 'nap', payload: { ms: 0 } });
    const res = await call('batch', [
      { name: 'stats', input: null },
      { name: 'getTask', input: { id: 99 } },
      { name: 'listTasks', input: { limit: 0 } },
      { name: 'throughputSeries', input: null },
    ]);
    expect(res.status).toBe(200);
    const [stats, missing, bad, series] = JSON.parse(res.body).value;
    expect(stats.value.counts.pending).toBe(1);
    expect(missing).toMatchObject({ status: 404, error: { name: 'NotFoundError' } });
    expect(bad).toMatchObject({ status: 400, error: { issues: [{ path: 'limit' }] } });
    expect(series.value).toMatchObject({ finished: 0, failed: 0 });
    expect(series.value.times).toHaveLength(12);
    expect((await call('batch', [])).status).toBe(400);
    expect((await call('batch', { name: 'stats' })).status).toBe(400);
  });

  it('refuses malformed and oversized bodies, wrong methods and content types with the right status', async () => {
    const { server, call } = await serve();
    const headers = {
      authorization: `Bearer ${server.token}`,
      'content-type': 'application/json',
      host: `127.0.0.1:${server.port}`,
    };
    const malformed = await request(server.port, {
      method: 'POST',
      path: '/api/stats',
      headers,
      body: '{nope',
    });
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body).error.message).toMatch(/^body: is not valid JSON/);
    const huge = await request(server.port, {
      method: 'POST',
      path: '/api/enqueue',
      headers,
      body: Buffer.alloc(2 * 1024 * 1024, 0x20),
    });
    expect(huge.status).toBe(413);
    const get = await request(server.port, { path: '/api/stats', headers });
    expect(get.status).toBe(405);
    const text = await request(server.port, {
      method: 'POST',
      path: '/api/stats',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: 'null',
    });
    expect(text.status).toBe(415);
    expect((await call('stats')).status).toBe(200);
  });

  it('pushes coalesced change events on the stream, a few per second however many tasks change', async () => {
    const { server, engine } = await serve();
    const frames: string[] = [];
    const res = await new Promise<http.IncomingMessage>((resolve) =>
      http.get({ host: '127.0.0.1', port: server.port, path: `/api/events?token=${server.token}` }, resolve),
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/event-stream/);
    res.on('data', (c: Buffer) =>
      frames.push(
        ...c
          .toString()
          .split('\n\n')
          .filter((f) => f.startsWith('event:')),
      ),
    );
    const start = Date.now();
    for (let i = 0; i < 2000; i++) await engine.enqueue({ kind: 'sleep', payload: { ms: 0 } });
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (frames.length > 0) {
          clearInterval(t);
          resolve();
        }
      }, 10);
    });
    const elapsed = Date.now() - start;
    expect(frames[0]).toMatch(/^event: changed\ndata: \{"taskIds":\[/);
    // The coalescer lets one batch out per 200 ms: never more frames than windows elapsed.
    expect(frames.length).toBeLessThanOrEqual(Math.ceil(elapsed / 200) + 1);
    res.destroy();
  });

  it('refuses a non-loopback bind unless asked, and stores a stable owner-only token', async () => {
    const dir = tempDir();
    const engine = await testEngine({ file: path.join(dir, 'q.db') });
    await expect(
      startServer({ engine, host: '0.0.0.0', port: 0, dataDir: dir, staticDir: null }),
    ).rejects.toThrow(/--allow-remote/);
    const a = await startServer({ engine, port: 0, dataDir: dir, staticDir: null });
    await a.close();
    const b = await startServer({ engine, port: 0, dataDir: dir, staticDir: null });
    servers.push(b);
    expect(b.token).toBe(a.token);
    expect(fs.statSync(path.join(dir, TOKEN_FILE)).mode & 0o777).toBe(0o600);
  });
});

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

describe('guard decisions', () => {
  it('accept loopback hosts on our port, same-origin pages and the exact token only', () => {
    const config = { token: 'a'.repeat(64), allowedHosts: loopbackHosts(7391) };
    expect(checkHost('127.0.0.1:7391', config).ok).toBe(true);
    expect(checkHost('LOCALHOST:7391', config).ok).toBe(true);
    expect(checkHost('127.0.0.1:80', config).ok).toBe(false);
    expect(checkHost(undefined, config).ok).toBe(false);
    expect(checkOrigin(undefined, '127.0.0.1:7391').ok).toBe(true);
    expect(checkOrigin('http://127.0.0.1:7391', '127.0.0.1:7391').ok).toBe(true);
    expect(checkOrigin('null', '127.0.0.1:7391').ok).toBe(false);
    expect(checkToken('a'.repeat(64), config).ok).toBe(true);
    expect(checkToken('a'.repeat(63), config)).toMatchObject({ ok: false, status: 401 });
    expect(checkToken(null, config)).toMatchObject({ ok: false, status: 401 });
  });
});

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
