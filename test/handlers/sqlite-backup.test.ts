import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { exited, spawnNode, tempDir, testEngine, waitFor } from '../helpers.ts';
import type { Engine } from '../../electron/core/engine.ts';

const writer = path.join(import.meta.dirname, 'fixtures', 'sqlite-writer.ts');
const NAME_RE = /^live-\d{8}T\d{9}Z\.db$/;

const finished = (engine: Engine, id: number) =>
  waitFor(async () => {
    const t = await engine.getTask(id);
    return ['done', 'failed', 'cancelled'].includes(t.status) && t;
  }, `task ${id} finished`);

interface BackupResult {
  path: string;
  size: number;
  deleted: number;
}

function smallDb(file: string): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec("CREATE TABLE t (x); INSERT INTO t VALUES ('kept')");
  db.close();
}

describe('sqlite-backup kind', () => {
  it('takes a consistent copy of a database another process is writing to', async () => {
    const dir = tempDir();
    const source = path.join(dir, 'live.db');
    const batch = 10;
    const child = spawnNode([writer, source, '5000', String(batch)]);
    const ready = await new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', (b: Buffer) => {
        const m = /ready (\d+)/.exec(b.toString());
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
    });
    const engine = await testEngine();
    engine.start();
    const destDir = path.join(dir, 'backups', 'nested');
    const { task } = await engine.enqueue({ kind: 'sqlite-backup', payload: { source, destDir } });
    const t = await finished(engine, task.id);
    child.kill('SIGTERM');
    await exited(child);
    expect(t.status, t.error ?? '').toBe('done');

    const result = t.result as unknown as BackupResult;
    expect(path.dirname(result.path)).toBe(destDir);
    expect(path.basename(result.path)).toMatch(NAME_RE);
    expect(result.size).toBe(fs.statSync(result.path).size);
    expect(result.deleted).toBe(0);
    if (process.platform !== 'win32') expect(fs.statSync(result.path).mode & 0o777).toBe(0o600);
    // Nothing half-written is left next to it.
    expect(fs.readdirSync(destDir)).toEqual([path.basename(result.path)]);

    const copy = new Database(result.path, { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(copy.prepare('SELECT count(*) FROM seed').pluck().get()).toBe(5000);
      const rows = copy.prepare('SELECT count(*) FROM log').pluck().get() as number;
      // Everything committed before the backup started is in it (a bare file copy would miss
      // whatever still sits in the WAL)...
      expect(rows).toBeGreaterThanOrEqual(ready);
      // ...and it is one moment of the database: whole transactions, no gaps.
      expect(rows % batch).toBe(0);
      expect(copy.prepare('SELECT max(seq) FROM log').pluck().get()).toBe(rows);
      const torn = copy
        .prepare('SELECT count(*) FROM (SELECT batch FROM log GROUP BY batch HAVING count(*) != ?)')
        .pluck()
        .get(batch);
      expect(torn).toBe(0);
    } finally {
      copy.close();
    }
    await engine.stop();
  });

  it('keeps the newest `keep` copies and deletes only older files of its own naming pattern', async () => {
    const dir = tempDir();
    const source = path.join(dir, 'live.db');
    smallDb(source);
    const destDir = path.join(dir, 'backups');
    fs.mkdirSync(destDir);
    const bystanders = [
      'notes.txt',
      'live-old.db',
      'other-20200101T000000000Z.db',
      'live-20200101T000000000Z.db.bak',
    ];
    for (const name of bystanders) fs.writeFileSync(path.join(destDir, name), 'not a backup of ours');
    // An old copy of ours, from an earlier run.
    fs.writeFileSync(path.join(destDir, 'live-20200101T000000000Z.db'), '');

    const engine = await testEngine();
    engine.start();
    const results: BackupResult[] = [];
    for (let i = 0; i < 3; i++) {
      const { task } = await engine.enqueue({ kind: 'sqlite-backup', payload: { source, destDir, keep: 2 } });
      const t = await finished(engine, task.id);
      expect(t.status, t.error ?? '').toBe('done');
      results.push(t.result as unknown as BackupResult);
    }
    expect(results.map((r) => r.deleted)).toEqual([0, 1, 1]);
    const ours = fs
      .readdirSync(destDir)
      .filter((n) => NAME_RE.test(n))
      .sort();
    expect(ours).toEqual([path.basename(results[1]!.path), path.basename(results[2]!.path)]);
    for (const name of bystanders) expect(fs.existsSync(path.join(destDir, name)), name).toBe(true);
    const copy = new Database(results[2]!.path, { readonly: true });
    expect(copy.prepare('SELECT x FROM t').pluck().get()).toBe('kept');
    copy.close();
    await engine.stop();
  });

  it('fails a missing source after one attempt, naming it', async () => {
    const dir = tempDir();
    const source = path.join(dir, 'nope.db');
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({
      kind: 'sqlite-backup',
      maxAttempts: 3,
      payload: { source, destDir: path.join(dir, 'b') },
    });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('failed');
    expect(t.attempts).toBe(1);
    expect(t.error).toBe(`source database "${source}" does not exist`);
    await engine.stop();
  });

  it('fails a file that is not a database after one attempt, leaving no partial copy', async () => {
    const dir = tempDir();
    const source = path.join(dir, 'fake.db');
    fs.writeFileSync(source, 'just some text, long enough to be read as a header by SQLite '.repeat(4));
    const destDir = path.join(dir, 'b');
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({
      kind: 'sqlite-backup',
      maxAttempts: 3,
      payload: { source, destDir },
    });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('failed');
    expect(t.attempts).toBe(1);
    expect(t.error).toMatch(/not a database/);
    expect(fs.readdirSync(destDir)).toEqual([]);
    await engine.stop();
  });
});
