/**
 * A PostgreSQL queue's URL: the schema is checked once (so it can be written bare everywhere and
 * its NOTIFY channel fits), and what is shown of the URL carries no secret.
 */
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePgLocation } from '../../electron/core/store/postgres/location.ts';
import { openPgStore } from '../../electron/core/store/postgres/pg-store.ts';
import type { TaskStore } from '../../electron/core/store/task-store.ts';
import { dropSchema, pgAvailable, PG_TEST_URL } from '../conformance/pg-backend.ts';
import { task } from '../conformance/shapes.ts';

const base = 'postgres://u:secret@db.example:5432/q';
const stores: TaskStore[] = [];
const schemas: string[] = [];

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const s of schemas.splice(0)) await dropSchema(s);
});

describe('a PostgreSQL location', () => {
  it('refuses a schema too long for its NOTIFY channel, naming the schema', () => {
    expect(parsePgLocation(`${base}?schema=${'a'.repeat(54)}`).schema).toHaveLength(54);
    expect(() => parsePgLocation(`${base}?schema=${'a'.repeat(55)}`)).toThrow(
      /^invalid schema "a+" in the PostgreSQL URL: [^\n]*at most 54/,
    );
  });

  it('refuses reserved SQL words and pg_ names as a schema, in one line', () => {
    for (const bad of ['select', 'user', 'order', 'left', 'pg_foo'])
      expect(() => parsePgLocation(`${base}?schema=${bad}`)).toThrow(
        new RegExp(`^invalid schema "${bad}" in the PostgreSQL URL: [^\\n]+$`),
      );
    expect(parsePgLocation(`${base}?schema=users`).schema).toBe('users');
  });

  it('shows neither the password nor any query option but the schema', () => {
    const where = parsePgLocation(
      `postgres://u@db.example/q?password=p1&sslpassword=p2&sslkey=/k/p3.key&schema=jobs`,
    );
    expect(where.display).toBe('postgres://u@db.example/q?schema=jobs');
    expect(where.connectionString).toContain('password=p1');
    expect(parsePgLocation(`${base}?sslmode=require`).display).toBe('postgres://u@db.example:5432/q');
  });

  it('connects as PGUSER or the OS account when the URL names no user, as psql does', () => {
    const saved = process.env.PGUSER;
    try {
      delete process.env.PGUSER;
      const bare = parsePgLocation('postgres://db.example:5432/q?schema=jobs');
      expect(new URL(bare.connectionString).username).toBe(os.userInfo().username);
      expect(bare.display).toBe('postgres://db.example:5432/q?schema=jobs');
      process.env.PGUSER = 'ops';
      expect(new URL(parsePgLocation('postgres://db.example/q').connectionString).username).toBe('ops');
      expect(new URL(parsePgLocation(base).connectionString).username).toBe('u');
    } finally {
      if (saved === undefined) delete process.env.PGUSER;
      else process.env.PGUSER = saved;
    }
  });

  it('keeps a password with / or @ out of the error for a URL it cannot parse', () => {
    for (const bad of ['postgres://u:pa/ss@wo@rd@[bad/q', 'postgres://u:se/cret@:99999/q?password=x']) {
      let message = '';
      try {
        parsePgLocation(bad);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/^invalid PostgreSQL URL: /);
      expect(message).not.toMatch(/pa\/ss|wo|se\/cret|password=x/);
    }
  });
});

describe.skipIf(!pgAvailable)('a PostgreSQL queue with the longest schema name', () => {
  it('takes writes (its NOTIFY channel fits)', async () => {
    const schema = `long_${process.pid}_`.padEnd(54, 'x');
    schemas.push(schema);
    const store = await openPgStore(`${PG_TEST_URL}?schema=${schema}`);
    stores.push(store);
    const [r] = await store.enqueue([task({ name: 'fits' })], Date.now());
    expect(r!.created).toBe(true);
  });
});
