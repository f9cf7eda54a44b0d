/**
 * Schema 5 (PostgreSQL only; SQLite's file stays at its version 4), two cuts to what a task's
 * attempt writes.
 *
 * tasks_status leaves out running tasks: a claim writes a new row version (status is in index
 * predicates, so never a HOT update) and no longer adds it to this index too; the partial
 * tasks_running already holds them, and the list asks for running tasks apart
 * (task-filter-sql.ts statusIn).
 *
 * History pages keep half their room free, so closing an attempt (and writing its live output) rewrites the row in place, a HOT
 * update that touches no index, instead of a new row version and an entry in both its indexes.
 * Every attempt row is written twice (opened at the claim, closed at the end), so a page filled
 * to half is full after its closes, as a full page would be after a vacuum of the old versions.
 * Takes effect for pages written from now on; existing rows are not moved.
 */
export const SCHEMA_V5 = `
  DROP INDEX tasks_status;
  CREATE INDEX tasks_status ON tasks (status, id) WHERE status <> 'running';
  ALTER TABLE history SET (fillfactor = 50);
`;
