/**
 * Throttle signals besides Retry-After: a shell command's exit 75 or its
 * `SEMAFORO_RETRY_AFTER=` line, and an HTTP quota used up (RateLimit / X-RateLimit headers),
 * which holds the group before the vendor has to answer 429. None uses up an attempt.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  parseWait,
  quotaExhausted,
  RetryMarker,
  shellThrottle,
} from '../../electron/core/handlers/throttle.ts';
import { testEngine, waitFor } from '../helpers.ts';

const headers = (h: Record<string, string>) => (name: string) => h[name.toLowerCase()] ?? null;
const NOW = 1_700_000_000_000;

describe('reading throttle signals', () => {
  it('reads waits as scripts write them', () => {
    expect([
      parseWait('30'),
      parseWait('1.5'),
      parseWait('2m'),
      parseWait('1h30m'),
      parseWait('soon'),
    ]).toEqual([30_000, 1500, 120_000, 5_400_000, null]);
  });

  it('finds the last marker line, split across chunks, and ignores look-alikes', () => {
    const m = new RetryMarker();
    m.feed('working\nSEMAFORO_RETRY_AFTER=5s\nmore\nSEMAFORO_RE');
    m.feed('TRY_AFTER=2m\r\n  echo SEMAFORO_RETRY_AFTER=1s\n');
    m.feed('SEMAFORO_RETRY_AFTER=whenever\n');
    m.end();
    expect([m.value, m.text]).toEqual([120_000, '2m']);
    const last = new RetryMarker();
    last.feed('SEMAFORO_RETRY_AFTER=7');
    last.end();
    expect(last.value).toBe(7000);
  });

  it('turns exit 75 or a marker into a clamped wait, and a success into none', () => {
    const none = { value: null, text: null };
    // exit 75 alone names no wait: the default is a guess (an adaptive group waits none)
    expect(shellThrottle(75, none)).toEqual({ ms: 30_000, why: 'exit 75 (EX_TEMPFAIL)', guessed: true });
    expect(shellThrottle(1, { value: 2000, text: '2s' })).toEqual({
      ms: 2000,
      why: 'SEMAFORO_RETRY_AFTER=2s',
      guessed: false,
    });
    expect(shellThrottle(1, { value: 10, text: '10ms' })!.ms).toBe(1000);
    expect(shellThrottle(1, { value: 86_400_000, text: '1d' })!.ms).toBe(3_600_000);
    expect(shellThrottle(0, { value: 2000, text: '2s' })).toBeNull();
    expect(shellThrottle(1, none)).toBeNull();
    expect(shellThrottle(null, none)).toBeNull();
  });

  it('reads a used-up quota from the draft and the common headers', () => {
    expect(quotaExhausted(headers({ ratelimit: '"default";r=0;t=12' }), NOW)).toEqual({
      ms: 12_000,
      why: 'RateLimit: "default";r=0;t=12',
    });
    expect(quotaExhausted(headers({ ratelimit: '"default";r=4;t=12' }), NOW)).toBeNull();
    expect(quotaExhausted(headers({ 'ratelimit-remaining': '0', 'ratelimit-reset': '3' }), NOW)!.ms).toBe(
      3000,
    );
    // GitHub's reset is a Unix time.
    const github = headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 90) });
    expect(quotaExhausted(github, NOW)).toEqual({
      ms: 90_000,
      why: `X-RateLimit-Remaining: 0, X-RateLimit-Reset: ${NOW / 1000 + 90}`,
    });
    expect(quotaExhausted(headers({ 'x-ratelimit-remaining': '0' }), NOW)).toBeNull();
    expect(
      quotaExhausted(headers({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '5' }), NOW),
    ).toBeNull();
    expect(quotaExhausted(headers({}), NOW)).toBeNull();
  });
});

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/**
 * A vendor allowing `quota` requests per `windowMs`, saying how many are left and when the
 * window ends; over quota it answers 429 (and counts it).
 */
async function vendor(quota: number, windowMs: number) {
  const log = { at: [] as number[], refused: 0 };
  let windowStart = 0;
  let used = 0;
  const server = http.createServer((_req, res) => {
    const now = Date.now();
    if (now - windowStart >= windowMs) {
      windowStart = now;
      used = 0;
    }
    const resetS = String(Math.ceil((windowStart + windowMs - now) / 1000));
    if (used >= quota) {
      log.refused++;
      res.writeHead(429, { 'ratelimit-remaining': '0', 'ratelimit-reset': resetS });
      res.end();
      return;
    }
    used++;
    log.at.push(now);
    res.writeHead(200, { 'ratelimit-remaining': String(quota - used), 'ratelimit-reset': resetS });
    res.end('ok');
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, log };
}

describe('throttle signals in a running queue', () => {
  it('holds the group when the quota is used up, so the vendor never answers 429', async () => {
    const { url, log } = await vendor(2, 2000);
    const engine = await testEngine();
    await engine.updateGroup('vendor', { concurrency: 1 });
    const ids = (
      await engine.enqueueMany(
        Array.from({ length: 5 }, (_, i) => ({
          kind: 'http',
          name: `call ${i}`,
          group: 'vendor',
          payload: { url },
        })),
      )
    ).map((r) => r.task.id);
    engine.start();
    await waitFor(async () => (await engine.stats(0)).counts.done === 5, 'all 5 calls done', 60_000);
    expect(log.refused).toBe(0);
    expect(log.at).toHaveLength(5);
    // The third call waited for the window the second one used up.
    expect(log.at[2]! - log.at[1]!).toBeGreaterThanOrEqual(900);
    const second = await engine.getTask(ids[1]!);
    expect(second.history.at(-1)!.output).toMatch(
      /quota used up \(RateLimit-Remaining: 0, RateLimit-Reset: \d\)/,
    );
    for (const id of ids) expect((await engine.getTask(id)).attempts).toBe(1);
    await engine.stop();
  });

  it.skipIf(process.platform === 'win32')(
    "cools a shell task's group on exit 75 and on a SEMAFORO_RETRY_AFTER line, using no attempt",
    async () => {
      const engine = await testEngine();
      const [tempfail, marker] = await engine.enqueueMany([
        {
          kind: 'shell',
          group: 'busy-api',
          maxAttempts: 1,
          payload: {
            command: 'sh',
            args: [
              '-c',
              'test -e "$0" && exit 0; touch "$0"; exit 75',
              `${process.env.TMPDIR ?? '/tmp'}/semaforo-75-${process.pid}-${Date.now()}`,
            ],
          },
        },
        {
          kind: 'shell',
          group: 'other-api',
          maxAttempts: 1,
          payload: {
            command: 'sh',
            args: [
              '-c',
              'test -e "$0" && exit 0; touch "$0"; echo SEMAFORO_RETRY_AFTER=2s; exit 1',
              `${process.env.TMPDIR ?? '/tmp'}/semaforo-ra-${process.pid}-${Date.now()}`,
            ],
          },
        },
      ]);
      engine.start();
      for (const [id, group, until] of [
        [tempfail!.task.id, 'busy-api', 25_000],
        [marker!.task.id, 'other-api', 1500],
      ] as const) {
        await waitFor(
          async () => (await engine.getTask(id)).status === 'retrying',
          `task ${id} to be held back`,
        );
        const g = (await engine.stats()).groups.find((x) => x.name === group)!;
        expect(g.blockedUntil! - Date.now()).toBeGreaterThan(until);
      }
      const m = await waitFor(async () => {
        const t = await engine.getTask(marker!.task.id);
        return t.status === 'done' && t;
      }, 'the marked task to run again after its 2 s and succeed');
      expect([m.attempts, m.retryAfterCount]).toEqual([1, 1]);
      expect(m.history[0]!.error).toMatch(/asked to wait 2s \(SEMAFORO_RETRY_AFTER=2s\)/);
      const t = await engine.getTask(tempfail!.task.id);
      expect(t.history[0]).toMatchObject({ outcome: 'retry-after' });
      expect(t.history[0]!.error).toMatch(/asked to wait 30s \(exit 75 \(EX_TEMPFAIL\)\)/);
      await engine.stop();
    },
  );
});
