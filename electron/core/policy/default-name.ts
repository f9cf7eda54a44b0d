/**
 * The name a task gets when its spec gives none: a label in lists, so it should say which task
 * this is. An http task is `POST api.example.com/v1/report` rather than fifty rows of `http`, a
 * shell task its command line, however it was enqueued (`enqueue -- …`, `--stdin`, HTTP, IPC),
 * its credentials hidden (hide-secrets.ts). Names reach notifications, the tray, the failure
 * webhook and logs, so a default one holds no secret and is short (a name given is kept as is).
 */
import { ellipsize } from '../../../shared/ellipsis.ts';
import { hideSecrets } from './hide-secrets.ts';

/** A label, not a record of the command: longer ones are cut with an ellipsis. */
export const DEFAULT_NAME_MAX = 120;

export function defaultTaskName(kind: string, payload: unknown): string {
  if (kind === 'http' && typeof payload === 'object' && payload !== null) {
    const p = payload as { method?: unknown; url?: unknown };
    if (typeof p.url === 'string') {
      try {
        const u = new URL(p.url);
        const method = typeof p.method === 'string' ? p.method.toUpperCase() : 'GET';
        // No query: it often holds tokens, and names show in lists and notifications.
        return label(`${method} ${u.host}${u.pathname}`);
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

/** A command line as a task's default name: its credentials hidden, cut to a label's length. */
export function commandLabel(command: readonly string[]): string {
  return label(hideSecrets(command).join(' '));
}

/**
 * `text` cut to DEFAULT_NAME_MAX, with any lone surrogate replaced: half an emoji would be
 * refused as "--name: …" when the user gave no name at all.
 */
function label(text: string): string {
  return ellipsize(text.replace(/\p{Cs}/gu, '\uFFFD'), DEFAULT_NAME_MAX);
}
