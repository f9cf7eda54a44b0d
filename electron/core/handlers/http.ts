/**
 * The `http` kind: one HTTP request with global fetch. What the status means decides what the
 * dispatcher does next: 2xx (or the expected status) is done; 429/503 wait for Retry-After and slow
 * the whole group; other 5xx and network errors retry with backoff; other 4xx fail for good.
 */
import { z } from 'zod';
import type { JsonValue } from '../../../shared/domain.ts';
import { timeoutMsSchema } from '../../../shared/schemas.ts';
import { formatDuration } from '../../../shared/durations.ts';
import { PermanentError, RetryAfterError } from '../errors.ts';
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

const urlSchema = z
  .string({ error: 'must be a string (an http: or https: URL)' })
  .max(8192, { error: 'must be at most 8192 characters' })
  .superRefine((s, ctx) => {
    const url = URL.canParse(s) ? new URL(s) : null;
    if (!url) ctx.addIssue({ code: 'custom', message: 'must be an absolute http: or https: URL' });
    else if (url.protocol !== 'http:' && url.protocol !== 'https:')
      ctx.addIssue({ code: 'custom', message: `must use http: or https:, not ${url.protocol}` });
    else if (url.username || url.password)
      ctx.addIssue({ code: 'custom', message: 'must not hold credentials; send an Authorization header' });
  });

const headersSchema = z
  .record(z.string(), z.string({ error: 'header values must be strings' }), {
    error: 'must be an object of header names to string values',
  })
  .superRefine((h, ctx) => {
    // Caught here rather than by fetch, whose TypeError would look like a network error and retry.
    for (const [name, value] of Object.entries(h)) {
      try {
        new Headers([[name, value]]);
      } catch {
        ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid HTTP header name or value' });
      }
    }
  });

const httpPayload = z
  .strictObject({
    method: z
      .preprocess(
        (v) => (typeof v === 'string' ? v.toUpperCase() : v),
        z.enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` }),
      )
      .optional(),
    url: urlSchema,
    headers: headersSchema.optional(),
    /** a string is sent as is; any other JSON value is sent as JSON */
    body: z.unknown().optional(),
    expectStatus: z
      .number({ error: 'must be an HTTP status from 100 to 599' })
      .int({ error: 'must be an HTTP status from 100 to 599' })
      .min(100, { error: 'must be an HTTP status from 100 to 599' })
      .max(599, { error: 'must be an HTTP status from 100 to 599' })
      .optional(),
    timeoutMs: timeoutMsSchema.optional(),
  })
  .superRefine((p, ctx) => {
    const method = p.method ?? 'GET';
    if (p.body !== undefined && (method === 'GET' || method === 'HEAD'))
      ctx.addIssue({ code: 'custom', path: ['body'], message: `a ${method} request cannot have a body` });
  });

export type HttpPayload = z.infer<typeof httpPayload>;

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
      `quota used up (${quota.why}): no start in group ${ctx.task.group} for ${formatDuration(quota.ms)}\n`,
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
  payload: httpPayload,
  run: request,
};
