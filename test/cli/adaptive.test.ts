/**
 * A vendor whose limit Semaforo is not told: an adaptive group finds it from the 429s, two worker
 * processes keep to one learned limit between them, and every face says what was learned.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { GroupInfo, Task } from '../../shared/domain.ts';
import { cli, freshDb, json } from './cli-helpers.ts';

const LIMIT_PER_S = 8;

/**
 * nginx's `limit_req` with burst 0: a request closer than 1/limit s to the last one let through
 * is answered 429, without a Retry-After.
 */
function limitedVendor() {
  const hits: { at: number; ok: boolean }[] = [];
  let lastOk = -Infinity;
  const server = http.createServer((_req, res) => {
    const at = performance.now();
    const ok = at - lastOk >= 1000 / LIMIT_PER_S;
    if (ok) lastOk = at;
    hits.push({ at, ok });
    if (ok) res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    else res.writeHead(429).end('limit_req: too many requests');
  });
  return { server, hits };
}

let close: (() => void) | null = null;
afterEach(() => close?.());

describe('an adaptive group', () => {
  it('finds a limit it was not told, one limit for two workers, and says so', async () => {
    const vendor = limitedVendor();
    await new Promise<void>((r) => vendor.server.listen(0, '127.0.0.1', r));
    close = () => vendor.server.close();
    const url = `http://127.0.0.1:${(vendor.server.address() as AddressInfo).port}/items`;
    const db = freshDb();
    const set = json<GroupInfo>(await cli(['--json', 'group', 'set', 'vendor', '--adaptive'], { db }));
    expect(set).toMatchObject({ rate: { limit: 50, periodMs: 1000 }, adaptive: { rate: 50 } });
    expect((await cli(['settings', '--concurrency', '8'], { db })).code).toBe(0);
    const specs = Array.from({ length: 100 }, (_, i) =>
      JSON.stringify({ kind: 'http', name: `item ${i}`, group: 'vendor', payload: { url: `${url}/${i}` } }),
    );
    expect((await cli(['enqueue', '--stdin'], { db, stdin: specs.join('\n') })).code).toBe(0);

    // A refused task waits Semaforo's 30 s guess (limit_req names no wait) before its next try,
    // while the group goes on at its lowered rate: about a minute in all, more on a loaded machine.
    const workers = await Promise.all(
      [1, 2].map(() => cli(['work', '--drain', '--concurrency', '4'], { db })),
    );
    expect(workers.map((w) => w.code)).toEqual([0, 0]);
    const tasks = json<Task[]>(await cli(['--json', 'list', '--limit', '200'], { db }));
    expect(tasks.filter((t) => t.status === 'done')).toHaveLength(100);
    const read = new Database(db, { readonly: true });
    const byWorker = read
      .prepare("SELECT count(DISTINCT worker) AS n FROM history WHERE type = 'attempt'")
      .get() as { n: number };
    read.close();
    expect(byWorker.n).toBe(2);

    // It was told 50/s and learned far less, from the vendor's 429s...
    const g = json<GroupInfo>(await cli(['--json', 'group', 'show', 'vendor'], { db }));
    expect(g.rate).toEqual({ limit: 50, periodMs: 1000 });
    expect(g.adaptive!.rate!).toBeLessThan(25);
    expect(g.adaptive!.lastThrottle).toContain('429');
    expect(g.adaptive!.history.length).toBeGreaterThan(3);
    // ... and a throttle cost no attempt: every task is done within its 3.
    expect(tasks.every((t) => t.attempts <= t.maxAttempts)).toBe(true);
    const throttled = vendor.hits.filter((h) => !h.ok).length;
    expect(throttled).toBeGreaterThanOrEqual(3);
    // Once learned, the two workers keep to one limit between them: two limits of the vendor's
    // size would have had about every other request refused.
    // (the last 40 requests let through, and the ones refused among them)
    const okAt = vendor.hits.flatMap((h, i) => (h.ok ? [i] : []));
    const late = vendor.hits.slice(okAt[okAt.length - 40]!);
    expect(late.filter((h) => !h.ok).length / late.length).toBeLessThan(0.25);

    const shown = await cli(['group', 'show', 'vendor'], { db });
    expect(shown.stdout).toMatch(/learned\s+\d+(\.\d)?\/s of 50\/s/);
    expect(shown.stdout).toMatch(/throttled\s+.*429/);
    const listed = await cli(['group', 'list'], { db });
    expect(listed.stdout).toMatch(/vendor\s+-\s+\S+\/s of 50\/s\s+adaptive, lowered/);

    const reset = json<GroupInfo>(await cli(['--json', 'group', 'reset', 'vendor'], { db }));
    expect(reset.adaptive).toMatchObject({ rate: 50, lastThrottle: null, history: [] });
  }, 300_000);

  it('refuses to reset a group that is not adaptive, or one that does not exist, in one line', async () => {
    const db = freshDb();
    expect((await cli(['group', 'set', 'fixed', '--rate', '5/s'], { db })).code).toBe(0);
    const fixed = await cli(['group', 'reset', 'fixed'], { db });
    expect(fixed.code).toBe(2);
    expect(fixed.stderr.trim().split('\n')).toHaveLength(1);
    expect(fixed.stderr).toContain('group fixed is not adaptive');
    const missing = await cli(['group', 'reset', 'nope'], { db });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('group "nope" does not exist');
    const none = await cli(['group', 'set', 'fixed'], { db });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--adaptive');
  });
});
