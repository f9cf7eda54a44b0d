/**
 * Schema 3: adaptive groups (../adaptive-row.ts), as SQLite's schema 3: what a group learned
 * under its caps, and the history of its effective limits (at most ADAPTIVE_HISTORY points a
 * group); a rate's burst (null: starts evenly spaced). Times on the database's clock, as
 * blocked_until. Named resources, as SQLite's (../resource-row.ts): capacities, what each task
 * uses, how often a claim passed it over; machine gates.
 */
export const SCHEMA_V3 = `
  ALTER TABLE groups
    ADD COLUMN adaptive boolean NOT NULL DEFAULT false,
    ADD COLUMN eff_concurrency double precision,
    ADD COLUMN eff_rate double precision,
    ADD COLUMN rate_ceiling double precision,
    ADD COLUMN adapt_decreased_at bigint,
    ADD COLUMN adapt_grown_at bigint,
    ADD COLUMN adapt_logged_at bigint,
    ADD COLUMN last_throttle_at bigint,
    ADD COLUMN last_throttle text,
    ADD COLUMN rate_burst bigint CHECK (rate_burst IS NULL OR rate_burst > 0);
  -- groups set before starts were spaced keep the bursts they had
  UPDATE groups SET rate_burst = rate_limit WHERE rate_limit IS NOT NULL;
  CREATE TABLE group_limits (
    group_name text NOT NULL,
    at bigint NOT NULL,
    concurrency bigint,
    rate double precision
  );
  CREATE INDEX group_limits_at ON group_limits (group_name, at);

  CREATE TABLE resources (
    name text PRIMARY KEY,
    capacity bigint NOT NULL CHECK (capacity >= 1)
  );
  ALTER TABLE tasks
    ADD COLUMN uses text,
    ADD COLUMN resource_waits bigint NOT NULL DEFAULT 0;
  CREATE INDEX tasks_using ON tasks (status, priority, run_at, id)
    WHERE uses IS NOT NULL AND status IN ('pending', 'running', 'retrying');
  CREATE INDEX tasks_resource_waits ON tasks (resource_waits)
    WHERE resource_waits > 0 AND status IN ('pending', 'retrying');
  CREATE TABLE gates (
    scope text PRIMARY KEY,
    max_load double precision,
    min_free_memory bigint,
    on_ac boolean NOT NULL DEFAULT false
  );
`;
