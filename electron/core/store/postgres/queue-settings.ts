/** The queue's settings and each group's limits, as the operator sets them (PostgreSQL). */
import type { GroupInfo, QueueSettings } from '../../../../shared/domain.ts';
import { ValidationError } from '../../../../shared/errors.ts';
import { PG_DURABILITY } from '../../../../shared/queue-place.ts';
import { DEFAULT_RATE_CAP } from '../../policy/adaptive-limit.ts';
import { burstAfter } from '../../policy/rate-limit.ts';
import { LEARNED_COLUMNS, type LearningRow, type LimitPoint } from '../adaptive-row.ts';
import { appliedRate, groupInfo, type GroupRow as SharedGroupRow } from '../group-row.ts';
import type { GroupUpdate, SettingsUpdate } from '../../../../shared/schemas.ts';
import { ADAPTIVE_COLUMN_TYPES } from './adaptive-learning.ts';
import { LIMIT_COLUMN_TYPES } from './limit-rows.ts';
import type { Db, Queryable } from './db.ts';
import { claimLockKey } from './tick.ts';
import { FLAG, INT, TEXT, TIME, orNull, rowChecker } from '../column-types.ts';

/** A row of `groups`, with the starts inside its rate window counted by the query. */
export interface GroupRow extends Omit<SharedGroupRow, 'paused'>, Omit<LearningRow, 'name'> {
  paused: boolean;
  rate_used: number;
  rate_oldest: number | null;
}

// Groups have no id: a bad row is named by its name.
const groupRow = rowChecker<GroupRow>(
  'groups',
  {
    ...LIMIT_COLUMN_TYPES,
    rate_used: INT,
    rate_oldest: orNull(TIME),
    ...ADAPTIVE_COLUMN_TYPES,
  },
  'name',
);

/** The starts inside the window of the rate as applied (spaced, or learned). */
const APPLIED_WINDOW = `SELECT count(*)::int AS used, min(started_at) AS oldest FROM group_starts
  WHERE group_name = $1 AND started_at > $2::bigint`;
const LIMIT_LOG = 'SELECT at, concurrency, rate FROM group_limits WHERE group_name = $1 ORDER BY at';
const limitPoint = rowChecker<LimitPoint>(
  'group_limits',
  { at: TIME, concurrency: orNull(INT), rate: orNull(TIME) },
  'at',
);

/**
 * The groups (all, or the one named $2) with their starts in the rate window ending at $1 (0
 * for a group without a rate limit), in name order by code point, as SQLite's BINARY sorts.
 */
const GROUPS = `SELECT g.name, g.concurrency, g.rate_limit, g.rate_period_ms, g.rate_burst, g.paused, g.blocked_until,
    g.adaptive, ${LEARNED_COLUMNS.map((c) => `g.${c}`).join(', ')},
    CASE WHEN g.rate_limit IS NULL OR g.rate_period_ms IS NULL THEN 0
      ELSE (SELECT count(*) FROM group_starts s
            WHERE s.group_name = g.name AND s.started_at > $1::bigint - g.rate_period_ms) END AS rate_used,
    (SELECT min(started_at) FROM group_starts s
      WHERE s.group_name = g.name AND s.started_at > $1::bigint - g.rate_period_ms) AS rate_oldest
  FROM groups g WHERE $2::text IS NULL OR g.name = $2 ORDER BY g.name COLLATE "C"`;

/**
 * Every group as the faces see it, without its counts (the caller adds them). The rate-window
 * log and cool-downs are stamped on the database's clock (claim.ts): they are judged at `now`
 * plus this host's `clockOffset` to it, and a cool-down's end is shown on the host's clock.
 */
export async function readGroups(
  q: Queryable,
  now: number,
  only: string | null = null,
  clockOffset = 0,
): Promise<GroupInfo[]> {
  const queueNow = now + clockOffset;
  // started_at > queueNow - period, for whole ms: > its floor
  const rows = await q.query<object>(GROUPS, [Math.floor(queueNow), only]);
  const out: GroupInfo[] = [];
  for (const row of rows) {
    const g = groupRow(row);
    const learned = g.adaptive ? (await q.query<object>(LIMIT_LOG, [g.name])).map(limitPoint) : [];
    const rate = appliedRate(g);
    const [applied] =
      rate === null
        ? [undefined]
        : await q.query<{ used: number; oldest: number | null }>(APPLIED_WINDOW, [
            g.name,
            Math.floor(queueNow) - rate.periodMs,
          ]);
    const window = { used: g.rate_used, oldest: g.rate_oldest };
    out.push(groupInfo(g, { now: queueNow, window, applied, clockOffset, learned }));
  }
  return out;
}

interface SettingsRow {
  global_concurrency: number;
  paused: boolean;
  retention_days: number;
  notify_enabled: boolean;
  notify_groups: string | null;
  failure_webhook: string | null;
  durability: string;
}

const settingsRow = rowChecker<SettingsRow>('settings', {
  global_concurrency: INT,
  paused: FLAG,
  retention_days: INT,
  notify_enabled: FLAG,
  notify_groups: orNull(TEXT),
  failure_webhook: orNull(TEXT),
  durability: TEXT,
});

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

export async function settings(q: Queryable): Promise<QueueSettings> {
  const [row] = await q.query<object>(
    `SELECT global_concurrency, paused, retention_days, notify_enabled, notify_groups, failure_webhook,
       durability FROM settings WHERE id = 1`,
  );
  if (!row) throw new Error('settings row 1 is missing');
  const s = settingsRow(row);
  return {
    globalConcurrency: s.global_concurrency,
    paused: s.paused,
    retentionDays: s.retention_days,
    notifications: { enabled: s.notify_enabled, groups: readGroupList(s.notify_groups) },
    failureWebhook: s.failure_webhook,
    durability: s.durability === 'full' ? 'full' : 'results',
  };
}

/** The settings columns an update names, with their new values (already validated). */
function settingsChanges(u: SettingsUpdate): [column: string, value: unknown][] {
  const out: [string, unknown][] = [];
  if (u.globalConcurrency !== undefined) out.push(['global_concurrency', u.globalConcurrency]);
  if (u.paused !== undefined) out.push(['paused', u.paused]);
  if (u.retentionDays !== undefined) out.push(['retention_days', u.retentionDays]);
  if (u.notifications?.enabled !== undefined) out.push(['notify_enabled', u.notifications.enabled]);
  if (u.notifications?.groups !== undefined)
    out.push([
      'notify_groups',
      u.notifications.groups === null ? null : JSON.stringify(u.notifications.groups),
    ]);
  if (u.failureWebhook !== undefined) out.push(['failure_webhook', u.failureWebhook]);
  if (u.durability !== undefined) out.push(['durability', u.durability]);
  return out;
}

/** Writes the settings named, keeps the others; the settings after it, read in the same transaction. */
export async function updateSettings(db: Db, update: SettingsUpdate): Promise<QueueSettings> {
  // Never read here: `full` would promise what it does not do; `results`, the default, is kept
  // so that one setup script serves both stores.
  if (update.durability === 'full')
    throw new ValidationError([
      { path: 'durability', message: `applies to SQLite queues only; ${PG_DURABILITY}` },
    ]);
  const changes = settingsChanges(update);
  if (changes.length === 0) return settings(db);
  return db.tx(async (q) => {
    const set = changes.map(([column], i) => `${column} = $${i + 1}`).join(', ');
    await q.query(
      `UPDATE settings SET ${set} WHERE id = 1`,
      changes.map(([, v]) => v),
    );
    q.changed();
    return settings(q);
  });
}

/**
 * Writes the group's limits (creating its row), and returns the group with its counts. `now`
 * decides what GroupInfo shows (a cool-down only while it lasts, the starts in the rate window):
 * the contract's method has no time, so the store passes its clock, as SQLite's does (and its
 * offset to the database's clock, see readGroups).
 */
export async function updateGroup(
  db: Db,
  name: string,
  update: GroupUpdate,
  now: number,
  clockOffset = 0,
): Promise<GroupInfo> {
  return db.tx(async (q) => {
    // What a tick learned must not land on top of this change (a reset, new caps): ticks hold
    // this lock from their read of the groups to their commit.
    await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [claimLockKey(db.schema)]);
    await q.query('INSERT INTO groups (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name]);
    // A learned rate is per period of its cap: moved to a new period, it is converted.
    if (update.rate !== undefined)
      await q.query(
        `UPDATE groups SET eff_rate = eff_rate * $2::double precision / rate_period_ms,
           rate_ceiling = rate_ceiling * $2::double precision / rate_period_ms
         WHERE name = $1 AND rate_period_ms IS NOT NULL`,
        [name, update.rate?.periodMs ?? null],
      );
    const set: string[] = [];
    const params: unknown[] = [name];
    const put = (column: string, value: unknown) => {
      params.push(value);
      set.push(`${column} = $${params.length}`);
    };
    if (update.concurrency !== undefined) put('concurrency', update.concurrency);
    if (update.rate !== undefined) {
      put('rate_limit', update.rate?.limit ?? null);
      put('rate_period_ms', update.rate?.periodMs ?? null);
    }
    if (update.paused !== undefined) put('paused', update.paused);
    const burst = burstAfter(update);
    if (burst !== undefined) put('rate_burst', burst);
    if (set.length > 0) await q.query(`UPDATE groups SET ${set.join(', ')} WHERE name = $1`, params);
    const a = update.adaptive;
    // Turned on or off, a group starts learning again from its caps.
    const switched =
      a !== undefined &&
      (
        await q.query('UPDATE groups SET adaptive = $2 WHERE name = $1 AND adaptive <> $2 RETURNING name', [
          name,
          a,
        ])
      ).length === 1;
    if (a === true && update.rate === undefined)
      await q.query(
        'UPDATE groups SET rate_limit = $2, rate_period_ms = $3 WHERE name = $1 AND rate_limit IS NULL',
        [name, DEFAULT_RATE_CAP.limit, DEFAULT_RATE_CAP.periodMs],
      );
    if (switched || update.forgetLearned === true) {
      await q.query(
        `UPDATE groups SET ${LEARNED_COLUMNS.map((c) => `${c} = NULL`).join(', ')} WHERE name = $1`,
        [name],
      );
      await q.query('DELETE FROM group_limits WHERE group_name = $1', [name]);
    }
    // The log of starts only serves the limit: without one it would only grow.
    if (update.rate === null) await q.query('DELETE FROM group_starts WHERE group_name = $1', [name]);
    q.changed();
    return groupWithCounts(q, name, now, clockOffset);
  });
}

/** One group as the faces see it, counts included. */
export async function groupWithCounts(
  q: Queryable,
  name: string,
  now: number,
  clockOffset = 0,
): Promise<GroupInfo> {
  const [g] = await readGroups(q, now, name, clockOffset);
  if (!g) throw new Error(`groups row ${name} is missing`);
  const counts = await q.query<{ status: unknown; n: unknown }>(
    'SELECT status, n FROM counts WHERE group_name = $1',
    [name],
  );
  addCounts(g, counts);
  return g;
}

/** Adds count rows ({status, n}) to a group's counts; unknown statuses are left out. */
export function addCounts(
  g: { counts: GroupInfo['counts'] },
  rows: readonly { status: unknown; n: unknown }[],
) {
  for (const r of rows) {
    if (typeof r.status !== 'string' || !(r.status in g.counts)) continue;
    if (!Number.isSafeInteger(r.n))
      throw new Error(`counts row ${r.status}: n is ${String(r.n)}, expected an integer`);
    g.counts[r.status as keyof GroupInfo['counts']] += r.n as number;
  }
}
