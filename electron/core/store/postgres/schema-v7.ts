/**
 * Schema 7 (PostgreSQL only): the delete trigger takes the counts rows in (group, status) order,
 * as the insert and update triggers do. Its `UPDATE counts ... FROM` took them in whatever order
 * the join produced (a hash join probed in the table's physical order), so a purge or a delete
 * and any statement taking the same rows in order (an enqueue, a claim, another host's ends)
 * could each hold a row the other wanted: a deadlock, one deadlock_timeout's stall of both. It
 * is now an upsert of negative deltas, sorted, like the others.
 */
export const SCHEMA_V7 = `
  CREATE OR REPLACE FUNCTION tasks_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO counts (group_name, status, n)
      SELECT group_name, status, -count(*) FROM old_rows GROUP BY group_name, status
      ORDER BY group_name, status
      ON CONFLICT (group_name, status) DO UPDATE SET n = counts.n + excluded.n;
    RETURN NULL;
  END $$;
`;
