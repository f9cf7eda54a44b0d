/**
 * The `http` kind: one HTTP request with global fetch. What the status means decides what the
 * dispatcher does next: 2xx (or the expected status) is done; 429/503 wait for Retry-After and slow
 * the whole group; other 5xx and network errors retry with backoff; other 4xx fail for good.
 */
import type { JsonValue } from '../../../shared/domain.ts';
import { formatElapsed } from '../../../shared/durations.ts';
import { PermanentError, RetryAfterError } from '../errors.ts';
import { LazyPayload } from './payload.ts';
import type { HttpPayload } from './payload-schemas.ts';
import type { Handler, HandlerContext } from './registry.ts';
import { parseRetryAfter, retryAfterDelay } from './retry-after.ts';
import { quotaExhausted } from './throttle.ts';

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** what the result keeps of the response body */
export const BODY_EXCERPT_BYTES = 4096;
const DEFAULT_TIMEOUT_MS = 30_000;
/** response headers worth keeping in the result; the rest would only bloat the database */
const KEPT_HEADERS = [
  'content-type',
  'content-length',
  'etag',
  'last-modified',
  'location',
  'retry-after',
  'x-request-id',
];

export type { HttpPayload };

/** What a status means for the task. */
export type StatusClass = 'ok' | 'retry-after' | 'retry' | 'permanent';

export function classifyStatus(status: number, expectStatus?: number): StatusClass {
  if (expectStatus !== undefined ? status === expectStatus : status >= 200 && status < 300) return 'ok';
  if (status === 429 || status === 503) return 'retry-after';
  // 408: the server gave up waiting for us; a new attempt may well work.
  if (status >= 500 || status === 408) return 'retry';
  return 'permanent';
}

/** The URL without its query, which often carries keys that do not belong in error text. */
function shortUrl(url: string): string {
  const u = new URL(url);
  const s = `${u.origin}${u.pathname}`;
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

function isTextual(contentType: string | null): boolean {
  if (!contentType) return true;
  return /^text\/|json|xml|javascript|x-www-form-urlencoded|csv|yaml/i.test(contentType);
}

/** Reads at most `max` bytes of the body as text, then lets the rest go. */
async function readExcerpt(res: Response, max: number): Promise<{ text: string | null; truncated: boolean }> {
  if (!res.body) return { text: null, truncated: false };
  if (!isTextual(res.headers.get('content-type'))) {
    await res.body.cancel().catch(() => {});
    return { text: null, truncated: false };
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  try {
    while (n <= max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      n += value.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = Buffer.concat(chunks).subarray(0, max);
  // stream: true holds back a character cut in half by the limit instead of garbling it.
  const text = new TextDecoder('utf-8').decode(bytes, { stream: n > max });
  return { text, truncated: n > max };
}

function keptHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const v = headers.get(name);
    if (v !== null) out[name] = v.length > 500 ? `${v.slice(0, 500)}…` : v;
  }
  return out;
}

function snippet(text: string | null): string {
  if (!text) return '';
  const one = text.replace(/\s+/g, ' ').trim();
  return one ? `: ${one.length > 300 ? `${one.slice(0, 300)}…` : one}` : '';
}

/** A failed fetch, as the user should read it: why the connection failed, or that time ran out. */
function requestFailure(err: unknown, ctx: HandlerContext, what: string, timeoutMs: number): unknown {
  if (ctx.signal.aborted) return ctx.signal.reason;
  if (err instanceof Error && err.name === 'TimeoutError')
    return new Error(`${what}: no complete response within ${timeoutMs} ms`);
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? err.cause.message : null;
    return new Error(`${what} failed: ${cause ?? err.message}`);
  }
  return new Error(`${what} failed: ${String(err)}`);
}

async function request(p: HttpPayload, ctx: HandlerContext): Promise<JsonValue> {
  const method = p.method ?? 'GET';
  const what = `${method} ${shortUrl(p.url)}`;
  const headers = new Headers(p.headers);
  let body: string | undefined;
  if (typeof p.body === 'string') body = p.body;
  else if (p.body !== undefined) {
    body = JSON.stringify(p.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const timeoutMs = p.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
  // Expecting a 3xx means the redirect itself is the answer; otherwise follow it.
  const manual = p.expectStatus !== undefined && p.expectStatus >= 300 && p.expectStatus < 400;
  ctx.log(`${what}\n`);
  const started = Date.now();
  let res: Response;
  let excerpt: { text: string | null; truncated: boolean };
  try {
    res = await fetch(p.url, { method, headers, body, signal, redirect: manual ? 'manual' : 'follow' });
    excerpt = await readExcerpt(res, BODY_EXCERPT_BYTES);
  } catch (err) {
    throw requestFailure(err, ctx, what, timeoutMs);
  }
  const status = `${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
  ctx.log(`-> ${status} after ${Date.now() - started} ms\n`);
  // A used-up quota holds the group before the vendor has to answer 429.
  const quota = quotaExhausted((name) => res.headers.get(name), Date.now());
  if (quota) {
    ctx.holdGroup?.(quota.ms);
    ctx.log(
      `quota used up (${quota.why}): no start in group ${ctx.task.group} for ${formatElapsed(quota.ms)}\n`,
    );
  }
  switch (classifyStatus(res.status, p.expectStatus)) {
    case 'ok':
      return {
        status: res.status,
        headers: keptHeaders(res.headers),
        body: excerpt.text,
        bodyTruncated: excerpt.truncated,
      };
    case 'retry-after': {
      const header = res.headers.get('retry-after');
      // Without a Retry-After, the quota's reset says how long.
      const ms = header === null && quota ? quota.ms : retryAfterDelay(header, Date.now());
      const said = header !== null ? `Retry-After: ${header}` : quota ? quota.why : 'Retry-After: not given';
      const guessed = !quota && parseRetryAfter(header, Date.now()) === null;
      throw new RetryAfterError(ms, `${what} -> ${status}; waiting ${ms / 1000} s (${said})`, { guessed });
    }
    case 'retry':
      throw new Error(`${what} -> ${status}${snippet(excerpt.text)}`);
    case 'permanent': {
      const expected = p.expectStatus !== undefined ? ` (expected ${p.expectStatus})` : '';
      throw new PermanentError(`${what} -> ${status}${expected}${snippet(excerpt.text)}`);
    }
  }
}

export const httpHandler: Handler<HttpPayload> = {
  kind: 'http',
  description:
    'send {method, url, headers?, body?}; 2xx (or expectStatus) is success, 429/503 honour Retry-After',
  payload: new LazyPayload(async () => (await import('./payload-schemas.ts')).httpPayload),
  run: request,
};
