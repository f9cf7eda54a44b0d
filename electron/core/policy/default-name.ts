/**
 * The name a task gets when its spec gives none: a label in lists, so it should say which task
 * this is. An http task is `POST api.example.com/v1/report` rather than fifty rows of `http`.
 */
import { LIMITS } from '../../../shared/limits.ts';

export function defaultTaskName(kind: string, payload: unknown): string {
  if (kind === 'http' && typeof payload === 'object' && payload !== null) {
    const p = payload as { method?: unknown; url?: unknown };
    if (typeof p.url === 'string') {
      try {
        const u = new URL(p.url);
        const method = typeof p.method === 'string' ? p.method.toUpperCase() : 'GET';
        // No query: it often holds tokens, and names show in lists and notifications.
        return `${method} ${u.host}${u.pathname}`.slice(0, LIMITS.nameLength);
      } catch {
        // not a URL: the kind's schema has refused it already; keep the kind
      }
    }
  }
  return kind;
}
