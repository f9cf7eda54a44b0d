/**
 * The CLI on a PostgreSQL queue (`--db postgres://...` or SEMAFORO_DB): the same commands as on a
 * file, spawned as a user runs them, and the password never shown. Real PostgreSQL
 * (test/conformance/pg-backend.ts says where, or skips).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Schedule, Task, TaskWithHistory } from '../../shared/domain.ts';
import { dropSchema, freshSchemaName, pgAvailable, pgLocation } from '../conformance/pg-backend.ts';
import { exited, spawnNode, tempDir } from '../helpers.ts';
import { BIN, cli, json } from './cli-helpers.ts';

const SCHEMA = freshSchemaName('cli');
const DB = pgLocation(SCHEMA);

describe.skipIf(!pgAvailable)('semaforo on a PostgreSQL queue', { timeout: 120_000 }, () => {
  afterAll(() => dropSchema(SCHEMA));

  it('enqueues, lists, drains and shows as on a file, from --db or SEMAFORO_DB', async () => {
    const id = json<Task>(
      await cli(['--json', '--db', DB, 'enqueue', '--group', 'g', '--', 'echo', 'hi']),
    ).id;
    const listed = json<Task[]>(await cli(['--json', 'list'], { env: { SEMAFORO_DB: DB } }));
    expect(listed.map((t) => [t.id, t.status, t.group])).toEqual([[id, 'pending', 'g']]);
    const drained = await cli(['--db', DB, 'work', '--drain']);
    expect(drained.code, drained.stderr).toBe(0);
    const shown = json<TaskWithHistory>(await cli(['--json', '--db', DB, 'show', String(id)]));
    expect(shown).toMatchObject({ status: 'done', attempts: 1 });
    expect(shown.history.at(-1)).toMatchObject({ outcome: 'done', output: 'hi\n' });
    const stats = json<{ counts: Record<string, number> }>(await cli(['--json', '--db', DB, 'stats']));
    expect(stats.counts).toMatchObject({ done: 1, pending: 0 });
  });

  it("runs a cron line's command here with `run`, its exit code kept, and fires and updates a schedule", async () => {
    const ran = await cli(['--db', DB, 'run', '--group', 'cron', '--', 'sh', '-c', 'echo ran; exit 7']);
    expect([ran.code, ran.stdout]).toEqual([7, 'ran\n']);
    const listed = json<Task[]>(await cli(['--json', '--db', DB, 'list', '--group', 'cron']));
    expect(listed.map((t) => [t.status, t.attempts, t.error])).toEqual([
      ['failed', 1, expect.stringMatching(/exited with code 7/)],
    ]);
    expect((await cli(['--db', DB, 'schedule', 'add', 'tick', '--every', '5m', '--', 'true'])).code).toBe(0);
    const fired = json<Task>(await cli(['--json', '--db', DB, 'schedule', 'run-now', 'tick']));
    expect(fired).toMatchObject({ name: 'tick', status: 'pending' });
    const updated = json<Schedule>(
      await cli([
        '--json',
        '--db',
        DB,
        'schedule',
        'update',
        'tick',
        '--cron',
        '0 3 * * *',
        '--rename',
        'nightly',
      ]),
    );
    expect(updated).toMatchObject({
      name: 'nightly',
      cron: '0 3 * * *',
      everyMs: null,
      task: { kind: 'shell' },
    });
    expect((await cli(['--db', DB, 'schedule', 'remove', 'nightly'])).code).toBe(0);
    expect((await cli(['--db', DB, 'delete', String(fired.id)])).code).toBe(0);
  });

  it('serves the dashboard API, its token kept in the data folder (a URL has no folder)', async () => {
    const home = tempDir();
    const withPassword = DB.replace('//postgres@', '//postgres:hunter2@');
    const child = spawnNode([BIN, '--db', withPassword, 'serve', '--port', '0', '--no-work'], {
      SEMAFORO_HOME: home,
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /Dashboard: (http:\/\/[^\s#]+)#token=([0-9a-f]+)/.exec(out);
        if (m) resolve(`${m[1]}|${m[2]}`);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    const [base, token] = url.split('|') as [string, string];
    const res = await fetch(new URL('api/stats', base), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const body = (await res.json()) as { value: { counts: Record<string, number> } };
    expect(body.value.counts.done).toBe(1);
    // The dashboard says which store it is on, never with the password.
    const place = await fetch(new URL('api/queueInfo', base), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: 'null',
    });
    const info = ((await place.json()) as { value: { backend: string; location: string } }).value;
    expect(info).toEqual({ backend: 'postgres', location: DB });
    expect(fs.readFileSync(path.join(home, 'serve-token'), 'utf8').trim()).toBe(token);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });

  it('says that durability is a SQLite setting, and refuses to set it here', async () => {
    const shown = await cli(['--db', DB, 'settings']);
    expect(shown.stdout).toMatch(
      /^durability +SQLite queues only; this queue is on PostgreSQL, where a commit/m,
    );
    // `results`, the default, is taken (one setup script for both stores); `full` is refused by
    // the store, so the HTTP API and the dashboard refuse it too.
    expect((await cli(['--db', DB, 'settings', '--durability', 'results'])).code).toBe(0);
    const set = await cli(['--db', DB, 'settings', '--durability', 'full']);
    expect(set.code).toBe(2);
    expect(set.stderr).toBe(
      "semaforo: --durability: applies to SQLite queues only; this queue is on PostgreSQL, where a commit waits as the server's synchronous_commit says\n",
    );
  });

  it('says where the queue is without its password, and opens nothing to say it', async () => {
    const url = DB.replace('//postgres@', '//postgres:hunter2@');
    const r = await cli(['--json', '--db', url, 'where']);
    expect(json<{ db: string; exists: boolean | null }>(r)).toMatchObject({ db: DB, exists: null });
    expect(r.stdout).not.toContain('hunter2');
  });

  it('connects as the OS account for a URL without a user, also where $USER is unset (cron)', async () => {
    const bare = DB.replace('//postgres@', '//');
    const r = await cli(['--json', '--db', bare, 'group', 'list'], { env: { USER: '', PGUSER: '' } });
    // The account may have no role on the test server: then the server names it.
    if (r.code !== 0) expect(r.stderr).toContain(`role "${os.userInfo().username}" does not exist`);
    else expect(json<unknown[]>(r)).toEqual(expect.any(Array));
  });
});
