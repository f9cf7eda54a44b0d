/** The queue's settings and each group's limits, as the operator sets them. */
import type { Database, Statement } from 'better-sqlite3';
import type { QueueSettings } from '../../../../shared/domain.ts';
import { DEFAULT_RATE_CAP } from '../../policy/adaptive-limit.ts';
import { burstAfter } from '../../policy/rate-limit.ts';
import { FORGOTTEN, LEARNED_COLUMNS, type AdaptiveColumns } from '../adaptive-row.ts';
import type { GroupRow as LimitColumns } from '../group-row.ts';
import type { GroupUpdate, SettingsUpdate } from '../../../../shared/schemas.ts';
import type { Commits } from './commits.ts';
import { prepareOnUse } from './lazy-statement.ts';

/** A row of `groups`: its limits and what it learned if adaptive. */
export type GroupRow = LimitColumns & AdaptiveColumns;

/** What a row of `groups` holds when created (the table's defaults). */
export const NEW_GROUP: Omit<GroupRow, 'name'> = {
  concurrency: null,
  rate_limit: null,
  rate_period_ms: null,
  paused: 0,
  blocked_until: null,
  rate_burst: null,
  adaptive: 0,
  ...FORGOTTEN,
};

interface SettingsRow {
  global_concurrency: number;
  paused: number;
  retention_days: number;
  notify_enabled: number;
  notify_groups: string | null;
  failure_webhook: string | null;
  durability: string;
}

/** The stored group list of the notification filter; anything unreadable means "every group". */
function readGroupList(text: string | null): string[] | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.every((g) => typeof g === 'string') ? v : null;
  } catch {
    return null;
  }
}

export class QueueSettingsStore {
  private readonly commits: Commits;
  private readonly read: Statement<[], SettingsRow>;
  private readonly ensureGroup: Statement<[string]>;
  private readonly groupConcurrency: Statement<[number | null, string]>;
  private readonly groupRate: Statement<[number | null, number | null, string]>;
  private readonly clearStarts: Statement<[string]>;
  private readonly groupPaused: Statement<[number, string]>;
  private readonly groupAdaptive: Statement<[number, string, number]>;
  private readonly groupBurst: Statement<[number | null, string]>;
  private readonly convertLearned: Statement<{ p: number | null; name: string }>;
  private readonly defaultRate: Statement<[number, number, string]>;
  private readonly forget: Statement<[string]>;
  private readonly forgetHistory: Statement<[string]>;
  /** one statement per setting, each `UPDATE settings SET <column> = ?` */
  private readonly set: Record<keyof SettingsRow, Statement<[string | number | null]>>;

  constructor(db: Database, commits: Commits) {
    this.commits = commits;
    this.read = prepareOnUse(
      db,
      `SELECT global_concurrency, paused, retention_days, notify_enabled, notify_groups, failure_webhook,
         durability
       FROM settings WHERE id = 1`,
    );
    this.ensureGroup = prepareOnUse(db, 'INSERT OR IGNORE INTO groups (name) VALUES (?)');
    this.groupConcurrency = prepareOnUse(db, 'UPDATE groups SET concurrency = ? WHERE name = ?');
    this.groupRate = prepareOnUse(db, 'UPDATE groups SET rate_limit = ?, rate_period_ms = ? WHERE name = ?');
    this.clearStarts = prepareOnUse(db, 'DELETE FROM group_starts WHERE group_name = ?');
    this.groupPaused = prepareOnUse(db, 'UPDATE groups SET paused = ? WHERE name = ?');
    this.groupBurst = prepareOnUse(db, 'UPDATE groups SET rate_burst = ? WHERE name = ?');
    this.convertLearned = prepareOnUse(
      db,
      `UPDATE groups SET eff_rate = eff_rate * @p / rate_period_ms, rate_ceiling = rate_ceiling * @p / rate_period_ms
       WHERE name = @name AND rate_period_ms IS NOT NULL`,
    );
    this.groupAdaptive = prepareOnUse(db, 'UPDATE groups SET adaptive = ? WHERE name = ? AND adaptive != ?');
    this.defaultRate = prepareOnUse(
      db,
      'UPDATE groups SET rate_limit = ?, rate_period_ms = ? WHERE name = ? AND rate_limit IS NULL',
    );
    this.forget = prepareOnUse(
      db,
      `UPDATE groups SET ${LEARNED_COLUMNS.map((c) => `${c} = NULL`).join(', ')} WHERE name = ?`,
    );
    this.forgetHistory = prepareOnUse(db, 'DELETE FROM group_limits WHERE group_name = ?');
    const set = (column: keyof SettingsRow) =>
      prepareOnUse<[string | number | null]>(db, `UPDATE settings SET ${column} = ? WHERE id = 1`);
    this.set = {
      global_concurrency: set('global_concurrency'),
      paused: set('paused'),
      retention_days: set('retention_days'),
      notify_enabled: set('notify_enabled'),
      notify_groups: set('notify_groups'),
      failure_webhook: set('failure_webhook'),
      durability: set('durability'),
    };
  }

  settings(): QueueSettings {
    const s = this.read.get()!;
    return {
      globalConcurrency: s.global_concurrency,
      paused: s.paused === 1,
      retentionDays: s.retention_days,
      notifications: { enabled: s.notify_enabled === 1, groups: readGroupList(s.notify_groups) },
      failureWebhook: s.failure_webhook,
      durability: s.durability === 'full' ? 'full' : 'results',
    };
  }

  /** Writes the group's limits; the caller reads the group back. */
  updateGroup(name: string, update: GroupUpdate): void {
    this.commits.run('durable', () => {
      this.ensureGroup.run(name);
      // A learned rate is per period of its cap: moved to a new period, it is converted.
      if (update.rate !== undefined) this.convertLearned.run({ p: update.rate?.periodMs ?? null, name });
      if (update.concurrency !== undefined) this.groupConcurrency.run(update.concurrency, name);
      if (update.rate !== undefined) {
        this.groupRate.run(update.rate?.limit ?? null, update.rate?.periodMs ?? null, name);
        if (update.rate === null) this.clearStarts.run(name);
      }
      if (update.paused !== undefined) this.groupPaused.run(update.paused ? 1 : 0, name);
      const burst = burstAfter(update);
      if (burst !== undefined) this.groupBurst.run(burst, name);
      const a = update.adaptive;
      // Turned on or off, a group starts learning again from its caps.
      const switched = a !== undefined && this.groupAdaptive.run(a ? 1 : 0, name, a ? 1 : 0).changes === 1;
      if (a === true && update.rate === undefined)
        this.defaultRate.run(DEFAULT_RATE_CAP.limit, DEFAULT_RATE_CAP.periodMs, name);
      if (switched || update.forgetLearned === true) {
        this.forget.run(name);
        this.forgetHistory.run(name);
      }
    });
  }

  updateSettings(update: SettingsUpdate): QueueSettings {
    this.commits.run('durable', () => {
      const s = this.set;
      if (update.globalConcurrency !== undefined) s.global_concurrency.run(update.globalConcurrency);
      if (update.paused !== undefined) s.paused.run(update.paused ? 1 : 0);
      if (update.retentionDays !== undefined) s.retention_days.run(update.retentionDays);
      if (update.notifications !== undefined) {
        const n = update.notifications;
        if (n.enabled !== undefined) s.notify_enabled.run(n.enabled ? 1 : 0);
        if (n.groups !== undefined) s.notify_groups.run(n.groups === null ? null : JSON.stringify(n.groups));
      }
      if (update.failureWebhook !== undefined) s.failure_webhook.run(update.failureWebhook);
      if (update.durability !== undefined) s.durability.run(update.durability);
    });
    if (update.durability !== undefined) this.commits.queueDurabilityChanged(update.durability);
    return this.settings();
  }
}
