/**
 * The list's search on PostgreSQL ignores case beyond ASCII whatever the database's locale: a
 * database created with LC_CTYPE C (lower() folds ASCII only there) finds `Élan` for `élan`.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import { PG_TEST_URL, pgAvailable } from '../conformance/pg-backend.ts';
import { task } from '../conformance/shapes.ts';

const database = `semaforo_cctype_${process.pid}_${randomBytes(3).toString('hex')}`;

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_TEST_URL });
  c.on('error', () => {});
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe.runIf(pgAvailable)('search on a PostgreSQL database whose LC_CTYPE is C', () => {
  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  });
  afterAll(async () => {
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it('finds names whatever their case, beyond ASCII', async () => {
    const url = new URL(PG_TEST_URL);
    url.pathname = `/${database}`;
    url.searchParams.set('schema', 'q');
    const store = await openPgStore(url.toString());
    try {
      await store.enqueue(
        ['Élan report', 'ÖBB fares', 'Жёлтый отчёт', 'BACKUP mail'].map((name) => task({ name })),
        0,
      );
      const found = async (search: string) => (await store.listTasks({ search })).tasks.map((t) => t.name);
      expect(await found('élan')).toEqual(['Élan report']);
      expect(await found('öbb')).toEqual(['ÖBB fares']);
      expect(await found('жёлтый')).toEqual(['Жёлтый отчёт']);
      expect(await found('backup')).toEqual(['BACKUP mail']);
      expect((await store.listTasks({ search: 'ÉLAN' })).total).toBe(1);
    } finally {
      await store.close();
    }
  });
});
