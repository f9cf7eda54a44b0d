/**
 * A mistyped ?schema= on a command that only reads: it says there is no queue there instead of
 * creating an empty one (as a missing folder does for a file); a command that writes creates it.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  dropSchema,
  freshSchemaName,
  pgAvailable,
  pgLocation,
  PG_TEST_URL,
} from '../conformance/pg-backend.ts';
import { cli } from './cli-helpers.ts';

const SCHEMA = freshSchemaName('nosuch');
const DB = pgLocation(SCHEMA);

async function schemaExists(): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_TEST_URL });
  await c.connect();
  try {
    const r = await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [SCHEMA]);
    return r.rowCount === 1;
  } finally {
    await c.end();
  }
}

describe.skipIf(!pgAvailable)(
  'a reading command on a PostgreSQL schema that has no queue',
  { timeout: 60_000 },
  () => {
    afterAll(() => dropSchema(SCHEMA));

    it('says so in one line and creates nothing; a writing command creates the queue', async () => {
      for (const args of [['stats'], ['list'], ['show', '1']]) {
        const r = await cli(['--db', DB, ...args]);
        expect(r.code).not.toBe(0);
        expect(r.stderr.trim()).toMatch(
          new RegExp(`^semaforo: no queue at [^\\n]*schema=${SCHEMA} \\(check \\?schema=\\)$`),
        );
      }
      expect(await schemaExists()).toBe(false);
      const made = await cli(['--db', DB, 'enqueue', '--', 'true']);
      expect(made.code, made.stderr).toBe(0);
      expect(await schemaExists()).toBe(true);
      expect((await cli(['--db', DB, 'stats'])).code).toBe(0);
    });
  },
);
