/**
 * What a replace writes over the columns it keeps (what the schedule has done: its last run,
 * skipped counts, creation time): each as it is, or reset where it cannot be read (a hand edit, a
 * bad restore), so that replacing a damaged schedule repairs every part of it (schedule-row.ts
 * reads them; a value it cannot read lists the schedule as damaged).
 */

/** Past 2^53 a JavaScript number cannot hold the integer (both backends store 64 bits). */
const SAFE = 'BETWEEN -9007199254740991 AND 9007199254740991';

/** SET clauses for `dialect`; `now` is the SQL of the replace's time (a parameter). */
export function keptColumnsRepaired(dialect: 'sqlite' | 'postgres', now: string): string {
  // SQLite's columns hold any type; PostgreSQL's bigint is always a number, perhaps too big.
  const int = (c: string) =>
    dialect === 'sqlite' ? `typeof(${c}) = 'integer' AND ${c} ${SAFE}` : `${c} ${SAFE}`;
  const time = (c: string) =>
    dialect === 'sqlite' ? `typeof(${c}) IN ('integer', 'real')` : `${c} IS NOT NULL`;
  return [
    `last_due_at = CASE WHEN ${time('last_due_at')} THEN last_due_at END`,
    `last_enqueued_at = CASE WHEN ${time('last_enqueued_at')} THEN last_enqueued_at END`,
    `last_task_id = CASE WHEN ${int('last_task_id')} THEN last_task_id END`,
    `skipped_overlap = CASE WHEN ${int('skipped_overlap')} THEN skipped_overlap ELSE 0 END`,
    `skipped_missed = CASE WHEN ${int('skipped_missed')} THEN skipped_missed ELSE 0 END`,
    `created_at = CASE WHEN ${time('created_at')} THEN created_at ELSE ${now} END`,
  ].join(', ');
}
