/**
 * The running tasks' lease columns grouped by owner, for the store read `leaseHolders`: both
 * stores read the same rows (ordered by owner, then start) and hand them here, so they agree.
 */
import type { LeasedTask, WorkerLeases } from '../../../shared/domain.ts';

/** A running task's row with its owner's columns, as both stores select it. */
export interface LeaseRow {
  id: number;
  name: string;
  group_name: string;
  kind: string;
  started_at: number | null;
  lease_owner: string;
  owner_host: string | null;
  owner_pid: number | null;
  lease_expires_at: number | null;
}

/** The SQL both stores run (the partial index `tasks_running` covers the filter). */
export const LEASE_ROWS_SQL = `SELECT id, name, group_name, kind, started_at, lease_owner, owner_host,
    owner_pid, lease_expires_at
  FROM tasks WHERE status = 'running' AND lease_owner IS NOT NULL`;

/** Owners in order of their oldest task, each with its tasks oldest first (ties by id). */
export function byOwner(rows: readonly LeaseRow[]): WorkerLeases[] {
  const owners = new Map<string, WorkerLeases>();
  for (const r of rows) {
    let w = owners.get(r.lease_owner);
    if (!w) {
      w = { id: r.lease_owner, host: r.owner_host, pid: r.owner_pid, since: null, tasks: [] };
      owners.set(r.lease_owner, w);
    }
    const t: LeasedTask = {
      id: r.id,
      name: r.name,
      group: r.group_name,
      kind: r.kind,
      startedAt: r.started_at,
      leaseExpiresAt: r.lease_expires_at,
    };
    w.tasks.push(t);
  }
  const byStart = (a: LeasedTask, b: LeasedTask) =>
    (a.startedAt ?? Infinity) - (b.startedAt ?? Infinity) || a.id - b.id;
  const out = [...owners.values()];
  for (const w of out) {
    w.tasks.sort(byStart);
    w.since = w.tasks[0]!.startedAt;
  }
  return out.sort((a, b) => (a.since ?? Infinity) - (b.since ?? Infinity) || (a.id < b.id ? -1 : 1));
}
