/**
 * For the tests that move an older PostgreSQL queue to the current schema: scratch schemas and
 * stores dropped and closed after each test, SQL run as the tests' user, and a queue made at an
 * older schema version as that version's code made it.
 */
import type pg from 'pg';
import { afterEach } from 'vitest';
import { SCHEMA_V1 } from '../../electron/core/store/postgres/schema.ts';
import { SCHEMA_V2 } from '../../electron/core/store/postgres/schema-v2.ts';
import { SCHEMA_V3 } from '../../electron/core/store/postgres/schema-v3.ts';
import { SCHEMA_V4 } from '../../electron/core/store/postgres/schema-v4.ts';
import { SCHEMA_V5 } from '../../electron/core/store/postgres/schema-v5.ts';
import { SCHEMA_V6 } from '../../electron/core/store/postgres/schema-v6.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import { dropSchema, freshSchemaName, pgAdmin as admin } from '../conformance/pg-backend.ts';

const SCHEMAS = [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5, SCHEMA_V6];

/** Registers the clean-up in the calling test file; `prefix` names its schemas. */
export function pgScratch(prefix: string) {
  const stores: TaskStore[] = [];
  const schemas: string[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const name of schemas.splice(0)) await dropSchema(name);
  });

  return {
    admin,
    /** A store to close after the test. */
    keep<S extends TaskStore>(store: S): S {
      stores.push(store);
      return store;
    },
    /**
     * A new schema holding a queue at `version`, then `fill` run in it (search_path set), before
     * any current code opened it.
     */
    async oldQueue<T>(
      version: 1 | 2 | 3 | 4 | 5 | 6,
      fill: (c: pg.Client) => Promise<T>,
    ): Promise<{ schema: string; filled: T }> {
      const schema = freshSchemaName(prefix);
      schemas.push(schema);
      const filled = await admin(async (c) => {
        await c.query(`CREATE SCHEMA ${schema}`);
        await c.query(`SET search_path TO ${schema}`);
        await c.query(SCHEMAS.slice(0, version).join(''));
        await c.query(`INSERT INTO schema_version (one, version) VALUES (true, ${version})`);
        return fill(c);
      });
      return { schema, filled };
    },
  };
}
