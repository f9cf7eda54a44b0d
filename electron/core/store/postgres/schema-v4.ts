/**
 * Schema 4, as SQLite's schema 4: a machine gate's idle condition and whether it pauses running
 * shell tasks; the time an attempt spent paused by one.
 */
export const SCHEMA_V4 = `
  ALTER TABLE gates
    ADD COLUMN when_idle_ms bigint CHECK (when_idle_ms IS NULL OR when_idle_ms > 0),
    ADD COLUMN pause_running boolean NOT NULL DEFAULT false;
  ALTER TABLE history ADD COLUMN paused_ms bigint;
`;
