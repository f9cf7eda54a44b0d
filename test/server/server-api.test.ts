/**
 * `semaforo serve`'s JSON API in process: contract requests and validation, actions by filter,
 * schedules, the token, Host and Origin refusals, the session cookie, batches, malformed bodies,
 * the change stream, and the loopback-only bind and token file.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../electron/server/server.ts';
import { TOKEN_FILE } from '../../electron/server/token.ts';
import { tempDir, testEngine } from '../helpers.ts';
import { request } from './http-client.ts';
import { serve, servers } from './serve-in-process.ts';

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
