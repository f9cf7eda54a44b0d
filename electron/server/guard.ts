/**
 * Who may talk to `semaforo serve`. Pure decisions, tested directly; the server only applies them.
 * - the token (bearer header, or `?token=` for the event stream, which EventSource cannot send
 *   headers for), compared in constant time;
 * - the Host header, against DNS rebinding: a page on evil.example that resolves its name to
 *   127.0.0.1 still sends `Host: evil.example`;
 * - the Origin header, so another site's page cannot drive the API from the user's browser.
 */
import crypto from 'node:crypto';

export interface GuardConfig {
  token: string;
  /** host:port values accepted in the Host header; null accepts any (bound to all interfaces) */
  allowedHosts: ReadonlySet<string> | null;
}

export type Verdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

const OK: Verdict = { ok: true };

export function loopbackHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

export function tokenMatches(given: string | null | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export function bearerOf(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return m ? m[1]! : null;
}

export function checkHost(host: string | undefined, config: GuardConfig): Verdict {
  if (!host) return { ok: false, status: 403, message: 'missing Host header' };
  if (config.allowedHosts && !config.allowedHosts.has(host.toLowerCase()))
    return { ok: false, status: 403, message: `Host "${host}" is not this server` };
  return OK;
}

/** A browser request from a page must come from the dashboard's own origin. */
export function checkOrigin(origin: string | undefined, host: string): Verdict {
  if (origin === undefined) return OK; // not a cross-origin browser request (curl, same-origin GET)
  if (origin === `http://${host}`) return OK;
  return { ok: false, status: 403, message: `requests from origin "${origin}" are not allowed` };
}

export function checkToken(given: string | null, config: GuardConfig): Verdict {
  if (given === null)
    return { ok: false, status: 401, message: 'missing token: open the Dashboard URL that serve printed' };
  if (!tokenMatches(given, config.token)) return { ok: false, status: 401, message: 'wrong token' };
  return OK;
}
