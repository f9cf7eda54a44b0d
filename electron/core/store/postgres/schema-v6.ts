/**
 * Schema 6 (PostgreSQL only): tasks_status keeps the waiting tasks only. A task's end rewrote its
 * row with an entry in this index too, though every ended task (done, failed, cancelled) has its
 * finished_at and so is in tasks_ended, whose (status, finished_at, id) serves a filter on an
 * ended status as well; the list of the newest ended tasks reads the primary key backwards.
 * Running tasks left it in schema 5 (tasks_running holds them).
 */
export const SCHEMA_V6 = `
  DROP INDEX tasks_status;
  CREATE INDEX tasks_status ON tasks (status, id) WHERE status IN ('pending', 'retrying');
`;
