/**
 * The dashboard's session cookie: a page that arrived with `#token=…` trades it (POST
 * /api/session with the bearer header) for an HttpOnly, SameSite=Strict cookie, so a deep link
 * pasted into a new tab (`#/tasks/243`) opens without asking for the token again. Pure
 * decisions, tested directly; the server only applies them.
 *
 * - The cookie's name carries the port: cookies are scoped by host, not by port, and two
 *   `serve`s on one machine (two data folders, two tokens) must not overwrite each other's.
 * - Its value is derived from the token, not the token: a cookie sent to another server on the
 *   same host (browsers send 127.0.0.1's cookies to every port) does not reveal the token that
 *   the CLI and API clients use.
 * - SameSite=Strict and the Origin check keep another site's page from riding it.
 */
import crypto from 'node:crypto';
import { tokenMatches } from './guard.ts';

/** Long enough that a bookmark keeps working for a month; the token itself never expires. */
export const SESSION_MAX_AGE_S = 30 * 24 * 3600;

export function sessionCookieName(port: number): string {
  return `semaforo_${port}`;
}

export function sessionValue(token: string): string {
  return crypto.createHmac('sha256', token).update('semaforo dashboard session').digest('hex');
}

/** The value of cookie `name` in a Cookie header, or null. */
export function cookieOf(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function sessionMatches(header: string | undefined, port: number, token: string): boolean {
  return tokenMatches(cookieOf(header, sessionCookieName(port)), sessionValue(token));
}

/** The Set-Cookie header that opens a session on this server. */
export function sessionCookie(port: number, token: string): string {
  return (
    `${sessionCookieName(port)}=${sessionValue(token)}; Path=/; Max-Age=${SESSION_MAX_AGE_S}; ` +
    'HttpOnly; SameSite=Strict'
  );
}
