/**
 * Text fields for limits (Groups and Settings screens) to validated updates: rates as people
 * type them (`10/min`, shared/durations parseRate), blanks meaning "no limit", and the shared
 * schemas' messages keyed by field.
 */
import type { GroupInfo } from '../../shared/domain.ts';
import { formatRate, parseRate } from '../../shared/durations.ts';
import { ValidationError } from '../../shared/errors.ts';
import {
  groupUpdateSchema,
  parseInput,
  settingsUpdateSchema,
  type GroupUpdate,
  type SettingsUpdate,
} from '../../shared/schemas.ts';

export type Messages = Record<string, string>;

function numberish(text: string): number | string {
  const t = text.trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}

function collect(
  schema: typeof groupUpdateSchema | typeof settingsUpdateSchema,
  value: unknown,
  into: Messages,
) {
  try {
    parseInput(schema, value);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    for (const i of err.issues) {
      // `rate.limit` and `rate.periodMs` both belong to the one rate field.
      const field = i.path.split('.')[0] || 'form';
      into[field] ??= i.path.includes('.')
        ? `${i.path.split('.').slice(1).join('.')} ${i.message}`
        : i.message;
    }
  }
}

/** Pausing a group is its own button (PauseButton), so the limits form leaves `paused` alone. */
export interface GroupFields {
  concurrency: string;
  rate: string;
  /** starts of the rate allowed at once; blank: evenly spaced */
  burst: string;
  /** the limits are caps, and the group learns the vendor's real limit under them */
  adaptive: boolean;
}

export function groupFields(g: GroupInfo | null): GroupFields {
  return {
    concurrency: g?.concurrency === null || g === null ? '' : String(g.concurrency),
    rate: g?.rate ? formatRate(g.rate) : '',
    burst: g?.burst != null && g.rate ? String(g.burst) : '',
    adaptive: g?.adaptive != null,
  };
}

export function groupUpdateFrom(f: GroupFields): { update: GroupUpdate; messages: Messages } {
  const messages: Messages = {};
  const update: Record<string, unknown> = {};
  update.concurrency = f.concurrency.trim() === '' ? null : numberish(f.concurrency);
  // Blank on an adaptive group: the rate cap it has, or for a new one the default cap.
  if (f.rate.trim() === '') {
    if (!f.adaptive) update.rate = null;
  } else {
    try {
      update.rate = parseRate(f.rate);
    } catch (err) {
      messages.rate = (err as Error).message;
    }
  }
  update.burst = f.burst.trim() === '' ? null : numberish(f.burst);
  update.adaptive = f.adaptive;
  collect(groupUpdateSchema, update, messages);
  return { update: update as GroupUpdate, messages };
}

export interface SettingsFields {
  globalConcurrency: string;
  retentionDays: string;
}

export function settingsUpdateFrom(f: SettingsFields): { update: SettingsUpdate; messages: Messages } {
  const messages: Messages = {};
  const update = {
    globalConcurrency: numberish(f.globalConcurrency),
    retentionDays: numberish(f.retentionDays),
  };
  collect(settingsUpdateSchema, update, messages);
  return { update: update as SettingsUpdate, messages };
}
