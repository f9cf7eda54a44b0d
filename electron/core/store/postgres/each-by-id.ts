/**
 * Rows picked by a list of ids (each once), each looked up through the primary key and locked,
 * in id order, whatever the table's statistics say.
 *
 * Written plainly (`WHERE id = ANY($1) ... FOR UPDATE`), the plan follows the statistics, which
 * a queue outruns: a table filled since autovacuum last analyzed it is planned as small, and
 * 512 ids took a sequential scan of 50,000 rows (5 ms), or a bitmap over every waiting task's
 * entry in tasks_status (8 ms), at every tick, against 0.9 ms for 512 lookups (RESULTS.md, "9,
 * sixth pass"). Here each id is a lateral subquery with a row lock, which PostgreSQL never pulls
 * up into a join, so it is planned for one id; the ids come sorted from a function scan, whose
 * order the nested loop keeps, so the rows are locked in id order.
 *
 * The list is read through a scalar subquery, whose size the planner cannot see: it assumes 10
 * rows, and that estimate spreads to the statement around. So a caller puts these rows in a
 * MATERIALIZED CTE returning the columns it checks, tests them there (the lock read the newest
 * version, and holds it), and joins the table to them by primary key only; joined to anything
 * else (a partial index, the ids again), a loop planned for 10 rows ran once per running task.
 * For the same reason `where` tests only what no index but one that also leads to the id can
 * answer (the claim's status test: tasks_status is (status, id)); narrowed by another indexed
 * column, the planner may probe that index, once per id, instead of the key.
 */

/** `lock`: FOR UPDATE (waits; id order, so two lockers never deadlock) or SKIP LOCKED. */
export function eachById(
  table: 'tasks' | 'history',
  idsSql: string,
  where: string,
  lock: 'FOR UPDATE' | 'FOR UPDATE SKIP LOCKED',
  columns = 'id',
): string {
  return `SELECT r.* FROM unnest((SELECT array_agg(DISTINCT i ORDER BY i) FROM unnest(${idsSql}) AS i)) AS x(id)
    CROSS JOIN LATERAL (SELECT ${columns} FROM ${table} WHERE ${table}.id = x.id AND ${where} ${lock}) r`;
}
