/**
 * Adaptive groups on PostgreSQL, as SQLite's (../sqlite/adaptive-learning.ts): the reads and
 * writes around the policy (../adaptive-row.ts), inside the tick's transaction (which holds the
 * queue's claim lock), so every host claims by the one learned limit. Times are on the database's
 * clock, as the cool-downs are.
 */
import { ADAPTIVE_HISTORY } from '../../../../shared/domain.ts';
import {
  LEARNED_COLUMNS,
  learnFromTick,
  withoutGuessedWait,
  type AdaptiveColumns,
  type LearningRow,
} from '../adaptive-row.ts';
import type { Finish } from '../task-store.ts';
import type { Queryable } from './db.ts';
import { FLAG, INT, TEXT, TIME, orNull, rowChecker, type RowSpec } from '../column-types.ts';

const NUMBER = TIME;

/** The types of the adaptive columns of `groups`, for every row check that reads them. */
export const ADAPTIVE_COLUMN_TYPES: RowSpec<AdaptiveColumns> = {
  adaptive: FLAG,
  eff_concurrency: orNull(NUMBER),
  eff_rate: orNull(NUMBER),
  rate_ceiling: orNull(NUMBER),
  adapt_decreased_at: orNull(TIME),
  adapt_grown_at: orNull(TIME),
  adapt_logged_at: orNull(TIME),
  last_throttle_at: orNull(TIME),
  last_throttle: orNull(TEXT),
};

export const learningRow = rowChecker<LearningRow>(
  'groups',
  {
    name: TEXT,
    concurrency: orNull(INT),
    rate_limit: orNull(INT),
    rate_period_ms: orNull(INT),
    ...ADAPTIVE_COLUMN_TYPES,
  },
  'name',
);

/** The adaptive groups' rows (adaptiveFrom reads them); empty on most queues. */
export const ADAPTIVE_ROWS = `SELECT name, concurrency, rate_limit, rate_period_ms, adaptive, ${LEARNED_COLUMNS.join(', ')}
  FROM groups WHERE adaptive`;
const GROUPS_OF = 'SELECT id, group_name FROM tasks WHERE id = ANY($1::bigint[])';
const WRITE = `UPDATE groups SET ${LEARNED_COLUMNS.map((c, i) => `${c} = $${i + 2}`).join(', ')}
  WHERE name = $1`;
const ADD_POINT = 'INSERT INTO group_limits (group_name, at, concurrency, rate) VALUES ($1, $2, $3, $4)';
const TRIM = `DELETE FROM group_limits WHERE group_name = $1 AND at < (
  SELECT at FROM group_limits WHERE group_name = $1 ORDER BY at DESC LIMIT 1 OFFSET ${ADAPTIVE_HISTORY - 1})`;

/** The adaptive groups by name, from the rows of ADAPTIVE_ROWS. */
export function adaptiveFrom(rows: readonly object[]): Map<string, LearningRow> {
  return new Map(rows.map((r) => learningRow(r)).map((r) => [r.name, r]));
}

async function groupOf(q: Queryable, taskIds: readonly number[]): Promise<Map<number, string>> {
  const rows = await q.query<{ id: number; group_name: string }>(GROUPS_OF, [taskIds]);
  return new Map(rows.map((r) => [r.id, r.group_name]));
}

/** `finishes` with a guessed wait taken off where their task's group is adaptive. */
export async function withoutGuessedWaits(
  q: Queryable,
  finishes: readonly Finish[],
  adaptive: ReadonlyMap<string, LearningRow>,
): Promise<readonly Finish[]> {
  const guessed = finishes.filter((f) => f.status !== 'done' && f.waitGuessed === true);
  if (guessed.length === 0 || adaptive.size === 0) return finishes;
  const groups = await groupOf(
    q,
    guessed.map((f) => f.taskId),
  );
  return finishes.map((f) => (adaptive.has(groups.get(f.taskId) ?? '') ? withoutGuessedWait(f) : f));
}

/** Learns from the finishes the tick wrote at `queueNow`, and writes what was learned. */
export async function learn(
  q: Queryable,
  applied: readonly Finish[],
  adaptive: ReadonlyMap<string, LearningRow>,
  queueNow: number,
): Promise<void> {
  if (applied.length === 0 || adaptive.size === 0) return;
  const groups = await groupOf(
    q,
    applied.map((f) => f.taskId),
  );
  for (const { name, write } of learnFromTick(adaptive, groups, applied, queueNow)) {
    await q.query(WRITE, [name, ...LEARNED_COLUMNS.map((c) => write[c])]);
    if (write.point === null) continue;
    const p = write.point;
    await q.query(ADD_POINT, [name, p.at, p.concurrency, p.rate]);
    await q.query(TRIM, [name]);
  }
}
