import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cli, freshDb, json } from '../cli/cli-helpers.ts';
import { exited } from '../helpers.ts';
import type { Task } from '../../shared/domain.ts';

const HOLDER = path.join(import.meta.dirname, 'fixtures', 'lock-holder.ts');

describe('lock contention', () => {
  it('enqueue waits for a long write by another process, then fails with "database busy" and writes nothing', async () => {
    const db = freshDb();
    json(await cli(['--json', 'stats'], { db })); // create the file
    const holder = spawn(process.execPath, [HOLDER, db], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((r) =>
      holder.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && r()),
    );

    const started = Date.now();
    const r = await cli(['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}'], { db });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('semaforo: database busy: another process holds a long write; try again\n');
    // It waited for the busy timeout (5 s) rather than failing at once.
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000);

    holder.stdin.end();
    expect(await exited(holder)).toBe(0);
    const ok = json<Task>(
      await cli(['--json', 'enqueue', '--kind', 'sleep', '--payload', '{"ms":0}'], { db }),
    );
    const all = json<Task[]>(await cli(['--json', 'list'], { db }));
    expect(all.map((t) => t.id)).toEqual([ok.id]);
    const check = new Database(db, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
  }, 30_000);
});

describe('a database from a newer Semaforo', () => {
  it('is refused with a clear message and left byte for byte untouched', async () => {
    const db = freshDb();
    json(await cli(['--json', 'stats'], { db }));
    const raw = new Database(db);
    raw.pragma('journal_mode = DELETE'); // one file to compare
    raw.pragma('user_version = 999');
    raw.close();
    const before = fs.readFileSync(db);
    for (const args of [
      ['stats'],
      ['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}'],
      ['schedule', 'list'],
    ]) {
      const r = await cli(args, { db });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^semaforo: this database has schema version 999, written by a newer Semaforo; .* Upgrade Semaforo to open it \(it is left untouched\)\.\n$/,
      );
    }
    expect(fs.readFileSync(db).equals(before)).toBe(true);
  }, 30_000);
});
