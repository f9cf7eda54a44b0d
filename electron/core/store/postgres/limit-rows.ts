/**
 * The rows the claim and the reaper decide with (limits, counts, candidates, lease holders),
 * checked as rows.ts checks tasks: the schema's column types already hold them, so this guards
 * against a schema changed by hand (`ALTER TABLE`), where a fractional or text limit would
 * otherwise be obeyed by JavaScript's coercion, i.e. silently wrong. A check is a typeof per
 * column, O(groups + candidates) per tick: nothing beside the round trips.
 */
import type { ClaimCandidate } from '../../policy/claim-plan.ts';
import { FLAG, INT, TEXT, TIME, orNull, rowChecker } from '../column-types.ts';

export const settingsLimitsRow = rowChecker<{ global_concurrency: number; paused: boolean }>('settings', {
  global_concurrency: INT,
  paused: FLAG,
});

export const countsRow = rowChecker<{ group_name: string; status: string; n: number }>(
  'counts',
  { group_name: TEXT, status: TEXT, n: INT },
  'group_name',
);

export interface GroupLimits {
  name: string;
  concurrency: number | null;
  rate_limit: number | null;
  rate_period_ms: number | null;
  rate_burst: number | null;
  paused: boolean;
  blocked_until: number | null;
  adaptive: boolean;
  eff_concurrency: number | null;
  eff_rate: number | null;
}

/** The types of a group's configured limits, for every row check that reads them. */
export const LIMIT_COLUMN_TYPES = {
  name: TEXT,
  concurrency: orNull(INT),
  rate_limit: orNull(INT),
  rate_period_ms: orNull(INT),
  rate_burst: orNull(INT),
  paused: FLAG,
  blocked_until: orNull(TIME),
} as const;

export const groupLimitsRow = rowChecker<GroupLimits>(
  'groups',
  {
    ...LIMIT_COLUMN_TYPES,
    adaptive: FLAG,
    eff_concurrency: orNull(TIME),
    eff_rate: orNull(TIME),
  },
  'name',
);

export const rateWindowRow = rowChecker<{ n: number; oldest: number | null }>('group_starts', {
  n: INT,
  oldest: orNull(TIME),
});

/** A candidate's ordering columns (its `uses` and `resource_waits` are read apart). */
export const candidateRow = rowChecker<Pick<ClaimCandidate, 'id' | 'priority' | 'run_at' | 'group_name'>>(
  'tasks',
  { id: INT, priority: INT, run_at: TIME, group_name: TEXT },
);

export const dueRow = rowChecker<{ at: number | null }>('tasks', { at: orNull(TIME) });

export interface OwnerRow {
  lease_owner: string | null;
  owner_pid: number | null;
  owner_host: string | null;
  latest: number | null;
}

export const ownerRow = rowChecker<OwnerRow>(
  'tasks',
  { lease_owner: orNull(TEXT), owner_pid: orNull(INT), owner_host: orNull(TEXT), latest: orNull(TIME) },
  'lease_owner',
);

export interface ReserverRow {
  reserved_for: string;
  reserved_pid: number | null;
  reserved_host: string | null;
}

export const reserverRow = rowChecker<ReserverRow>(
  'tasks',
  { reserved_for: TEXT, reserved_pid: orNull(INT), reserved_host: orNull(TEXT) },
  'reserved_for',
);
