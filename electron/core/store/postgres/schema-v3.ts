/**
 * Schema 3: adaptive groups (../adaptive-row.ts), as SQLite's schema 3: what a group learned
 * under its caps, and the history of its effective limits (at most ADAPTIVE_HISTORY points a
 * group); a rate's burst (null: starts evenly spaced). Times on the database's clock, as
 * blocked_until.
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
`;
