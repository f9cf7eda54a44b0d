/**
 * Schema 2: the counters' update trigger without a join of its transition tables. PostgreSQL
 * keeps no statistics on them, so `old_rows JOIN new_rows USING (id)` ran as a nested loop: a
 * tick finishing 2,000 tasks spent 266 ms in each of its two joins, and a drain got slower the
 * bigger its batches. The counters now add up each side on its own (-1 per old row, +1 per new
 * row, rows whose status did not move cancel out), and a row trigger that fires only when a
 * statement sets group_name to another value guards what the join used to check.
 */
export const SCHEMA_V2 = `
  CREATE OR REPLACE FUNCTION tasks_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    WITH deltas AS (
      SELECT group_name, status, sum(d) AS d FROM (
        SELECT group_name, status, -1 AS d FROM old_rows
        UNION ALL SELECT group_name, status, 1 FROM new_rows
      ) x GROUP BY group_name, status HAVING sum(d) <> 0
    )
    INSERT INTO counts (group_name, status, n)
      SELECT group_name, status, d FROM deltas ORDER BY group_name, status
      ON CONFLICT (group_name, status) DO UPDATE SET n = counts.n + excluded.n;
    RETURN NULL;
  END $$;
  CREATE FUNCTION tasks_group_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'a task cannot change group';
  END $$;
  CREATE TRIGGER tasks_group_fixed BEFORE UPDATE OF group_name ON tasks
    FOR EACH ROW WHEN (OLD.group_name IS DISTINCT FROM NEW.group_name)
    EXECUTE FUNCTION tasks_group_fixed();
`;
