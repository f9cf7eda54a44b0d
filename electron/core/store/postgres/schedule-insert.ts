/**
 * A schedule's task written into `tasks`, inside the firing's transaction: pending, with the
 * enqueue's defaults. A due time that already has its task (the unique (schedule_id,
 * scheduled_for) index) is not written again, and ON CONFLICT keeps the transaction alive (a
 * unique violation would abort it): the holder comes back with `created: false`.
 */
import type { EnqueueResult, NewTask } from '../task-store.ts';
import type { Queryable } from './db.ts';
import { toTask } from './rows.ts';

export async function insertScheduledTask(q: Queryable, t: NewTask, now: number): Promise<EnqueueResult> {
  await q.query('INSERT INTO groups (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [t.group]);
  const due = t.schedule ?? null;
  const [row] = await q.query<object>(
    `INSERT INTO tasks (kind, name, group_name, priority, payload, status, max_attempts, run_at, timeout_ms,
       unique_key, created_at, schedule_id, scheduled_for)
     VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (schedule_id, scheduled_for) WHERE schedule_id IS NOT NULL DO NOTHING
     RETURNING *`,
    [
      t.kind,
      t.name,
      t.group,
      t.priority,
      t.payload,
      t.maxAttempts,
      t.runAt,
      t.timeout,
      t.unique,
      now,
      due?.id ?? null,
      due?.dueAt ?? null,
    ],
  );
  q.changed();
  if (row) return { task: toTask(row), created: true };
  const [held] = await q.query<object>('SELECT * FROM tasks WHERE schedule_id = $1 AND scheduled_for = $2', [
    due?.id ?? null,
    due?.dueAt ?? null,
  ]);
  if (!held) throw new Error(`tasks: the task of schedule ${due?.id} due ${due?.dueAt} vanished`);
  return { task: toTask(held), created: false };
}
