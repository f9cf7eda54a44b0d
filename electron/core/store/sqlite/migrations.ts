import type { Database } from 'better-sqlite3';
import { SchemaTooNewError } from '../../errors.ts';
import { APPLICATION_ID, SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4 } from './schema.ts';

/**
 * Numbered schema migrations. The schema version lives in `PRAGMA user_version`; each migration
 * runs in its own transaction together with the version bump, so a crash leaves either the old or
 * the new schema. Never edit a shipped migration: add the next one.
 */
interface Migration {
  version: number;
  description: string;
  up: (db: Database) => void;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'tasks, history, groups, counters, settings, schedules, inbox',
    up: (db) => db.exec(SCHEMA_V1),
  },
  {
    version: 2,
    description: "schedules' alarms: grace, maximum and minimum run time",
    up: (db) => db.exec(SCHEMA_V2),
  },
  {
    version: 3,
    description: 'adaptive groups: learned limits and their history',
    up: (db) => db.exec(SCHEMA_V3),
  },
  {
    version: 4,
    description: "machine gates' idle condition and pausing; the time an attempt was paused",
    up: (db) => db.exec(SCHEMA_V4),
  },
];

const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * The user_versions of the schema before 0.1.0 started it again at 1 (never released). Such a
 * file has no application id; a file of schema 1 and later has APPLICATION_ID.
 */
const PRE_RELEASE_VERSIONS = { from: 1, to: 7 };

/** The file was written by a Semaforo from before schema version 1: it is left untouched. */
class PreReleaseSchemaError extends Error {
  constructor(found: number) {
    super(
      `this database was written by a pre-release Semaforo (its schema version ${found} predates ` +
        `schema 1 of Semaforo 0.1.0) and cannot be opened; move it aside to start a new queue ` +
        `(it is left untouched).`,
    );
    this.name = 'PreReleaseSchemaError';
  }
}

/** The file's schema version, or why this version must not touch it. Reads only. */
export function schemaVersion(db: Database): number {
  const found = db.pragma('user_version', { simple: true }) as number;
  const app = db.pragma('application_id', { simple: true }) as number;
  if (app !== APPLICATION_ID && found >= PRE_RELEASE_VERSIONS.from && found <= PRE_RELEASE_VERSIONS.to)
    throw new PreReleaseSchemaError(found);
  if (found > LATEST_SCHEMA_VERSION) throw new SchemaTooNewError(found, LATEST_SCHEMA_VERSION);
  return found;
}

export function migrate(db: Database): { from: number; to: number } {
  const from = schemaVersion(db);
  for (const m of MIGRATIONS) {
    if (m.version <= from) continue;
    db.transaction(() => {
      // Re-check inside the write lock: another process may have migrated meanwhile.
      if (schemaVersion(db) >= m.version) return;
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
  return { from, to: Math.max(from, LATEST_SCHEMA_VERSION) };
}
