/**
 * The Settings screen's failure alerts (desktop notifications, the webhook) and durability, as
 * typed, to the validated update the CLI's `settings` sends too (shared/schemas.ts
 * `settingsUpdateSchema`), with each problem keyed by the field it is shown next to.
 */
import type { Durability, QueueSettings } from '../../shared/domain.ts';
import { ValidationError } from '../../shared/errors.ts';
import { parseInput, settingsUpdateSchema, type SettingsUpdate } from '../../shared/schemas.ts';
import type { Messages } from './limits-form.ts';

export interface AlertFields {
  notify: boolean;
  /** comma-separated group names; blank: every group */
  notifyGroups: string;
  /** blank: no webhook */
  webhook: string;
}

export function alertFields(s: QueueSettings): AlertFields {
  return {
    notify: s.notifications.enabled,
    notifyGroups: s.notifications.groups?.join(', ') ?? '',
    webhook: s.failureWebhook ?? '',
  };
}

/** What each durability setting means, in one sentence (shown beside its choice). */
export const DURABILITY_WORDS: Record<Durability, { label: string; sentence: string }> = {
  results: {
    label: 'Results (default)',
    sentence:
      'Every result and operator action is on disk before it is reported; a task enqueued moments before a power cut may be lost, though no process crash loses it.',
  },
  full: {
    label: 'Full',
    sentence:
      'Every commit, enqueues included, waits for the disk: nothing acknowledged is lost, at the cost of slower enqueues.',
  },
};

/** The request's field paths to the form's fields. */
export function fieldOf(path: string): string {
  if (path.startsWith('failureWebhook')) return 'webhook';
  if (path.startsWith('notifications.groups')) return 'notifyGroups';
  if (path.startsWith('notifications')) return 'notify';
  return path.split('.')[0] || 'form';
}

/** Problems by field, from a ValidationError's issues (the client's check or the server's). */
export function messagesOf(
  issues: readonly { path: string; message: string }[],
  groups: string[] = [],
): Messages {
  const out: Messages = {};
  for (const i of issues) {
    const field = fieldOf(i.path);
    const at = /^notifications\.groups\[(\d+)\]/.exec(i.path);
    const name = at ? groups[Number(at[1])] : undefined;
    out[field] ??= name !== undefined ? `"${name}": ${i.message}` : i.message;
  }
  return out;
}

function check(update: SettingsUpdate, groups: string[]): Messages {
  try {
    parseInput(settingsUpdateSchema, update);
    return {};
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return messagesOf(err.issues, groups);
  }
}

export function alertsUpdateFrom(f: AlertFields): {
  update: SettingsUpdate;
  messages: Messages;
  groups: string[];
} {
  // Each group once ("a, a" is a); blank is every group, as the field's hint says.
  const groups = [
    ...new Set(
      f.notifyGroups
        .split(',')
        .map((g) => g.trim())
        .filter(Boolean),
    ),
  ];
  const update: SettingsUpdate = {
    notifications: { enabled: f.notify, groups: groups.length ? groups : null },
    failureWebhook: f.webhook.trim() === '' ? null : f.webhook.trim(),
  };
  const messages = check(update, groups);
  // Commas and nothing else is not blank: it must not quietly mean every group.
  if (groups.length === 0 && f.notifyGroups.trim() !== '')
    messages.notifyGroups =
      'names no group: give names separated by commas, or leave it blank for every group';
  return { update, messages, groups };
}

export function durabilityUpdateFrom(d: string): { update: SettingsUpdate; messages: Messages } {
  const update = { durability: d } as SettingsUpdate;
  return { update, messages: check(update, []) };
}
