/**
 * The name a task gets when its spec gives none: a label in lists, so it should say which task
 * this is. An http task is `POST api.example.com/v1/report` rather than fifty rows of `http`, a
 * shell task its command line, however it was enqueued (`enqueue -- …`, `--stdin`, HTTP, IPC).
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
  if (kind === 'shell' && typeof payload === 'object' && payload !== null) {
    const p = payload as { command?: unknown; args?: unknown };
    const args = Array.isArray(p.args) ? p.args.filter((a): a is string => typeof a === 'string') : [];
    if (typeof p.command === 'string' && p.command !== '') return commandLabel([p.command, ...args]);
  }
  return kind;
}

/**
 * A command line as a task's name, cut to the name limit. Cut on a character boundary and with
 * any lone surrogate replaced: the name is only a label, and half an emoji would otherwise be
 * refused as "--name: …" when the user gave no name at all.
 */
export function commandLabel(command: readonly string[]): string {
  const text = command.join(' ').replace(/\p{Cs}/gu, '\uFFFD');
  const cut = text.slice(0, LIMITS.nameLength);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
