/**
 * The database file deleted or replaced under a running worker (SQLite would go on writing into
 * the lost inode): the worker says so, claims nothing more, exits 1, and leaves whatever file is
 * at the path now, and its users, alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../shared/domain.ts';
import { tempDir, waitFor } from '../helpers.ts';
import { start, run, ok, exitOf, rows, integrity, started, gatedTask } from './storage-fault-rig.ts';

describe('the database file lost under a running worker', () => {
  it('deleted: the worker says so, claims nothing more, exits 1, and leaves the new file at the path alone', async () => {
    const dir = tempDir();
    const aside = tempDir();
    const db = path.join(dir, 'queue.db');
    const log = path.join(aside, 'runs.log');
    const gate = path.join(aside, 'gate');
    ok(
      await run(['enqueue', '--stdin'], {
        db,
        stdin: ['a', 'b', 'c'].map((n) => gatedTask(n, log, gate)).join('\n'),
      }),
    );
    const old = start(['work', '-c', '1'], { db });
    await waitFor(() => started(log).includes('a'), 'a running');

    for (const suffix of ['', '-wal', '-shm']) fs.unlinkSync(db + suffix);
    const said = `semaforo: error: the queue database ${db} was deleted while this process had it open; stopped dispatching, since whatever it wrote from now on would be lost (restore the file, or restart to open what is there now)`;
    await waitFor(() => old.lines.some((l) => l.text === said), 'the worker noticing');

    // Meanwhile a new queue comes to life at the same path, kept open by another worker.
    ok(await run(['enqueue', '--stdin'], { db, stdin: gatedTask('d', log, gate) }));
    const next = start(['work'], { db });
    await waitFor(() => started(log).includes('d'), 'the new worker running d');

    fs.writeFileSync(gate, ''); // a may end now, into the lost file
    expect(await exitOf(old)).toBe(1);
    expect(old.lines.filter((l) => l.text.startsWith('semaforo: error:')).map((l) => l.text)).toEqual([said]);
    expect(old.stderr).not.toMatch(/\n\s+at /);
    // It claimed nothing after the loss: b and c never started (they went with the old file).
    expect(started(log).sort()).toEqual(['a', 'd']);

    // The old worker's exit left the new file's -wal and -shm alone: its worker goes on.
    expect(fs.existsSync(`${db}-wal`) && fs.existsSync(`${db}-shm`)).toBe(true);
    ok(await run(['enqueue', '--name', 'e', '--kind', 'sleep', '--payload', '{"ms":0}'], { db }));
    await waitFor(() => rows(db).every((r) => r.status === 'done') && rows(db).length === 2, 'd and e done');
    next.child.kill('SIGTERM');
    expect(await exitOf(next)).toBe(0);
    expect(rows(db).map((r) => r.name)).toEqual(['d', 'e']);
    expect(integrity(db)).toBe('ok');
  }, 40_000);

  it('replaced (a backup moved over it): the worker says so, exits 1, and its -wal does not leak into the restored file', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'queue.db');
    const backup = path.join(dir, 'backup.db');
    const sleep = (name: string) => JSON.stringify({ kind: 'sleep', name, payload: { ms: 0 } });
    ok(
      await run(
        ['enqueue', '--name', 'restored', '--kind', 'sleep', '--payload', '{"ms":0}', '--delay', '1h'],
        { db: backup },
      ),
    );
    ok(await run(['enqueue', '--stdin'], { db, stdin: ['old1', 'old2'].map(sleep).join('\n') }));
    const worker = start(['work'], { db });
    // Done by the worker: those writes sit in its -wal, not yet in the main file.
    await waitFor(() => {
      const r = rows(db);
      return r.length === 2 && r.every((t) => t.status === 'done');
    }, 'the old tasks done');

    fs.renameSync(backup, db);
    expect(await exitOf(worker)).toBe(1);
    expect(worker.lines.filter((l) => l.text.startsWith('semaforo: error:')).map((l) => l.text)).toEqual([
      `semaforo: error: the queue database ${db} was replaced by another file while this process had it open; stopped dispatching, since whatever it wrote from now on would be lost; removed its -wal and -shm, which belong to the lost file (restore the file, or restart to open what is there now)`,
    ]);
    // The restored file reads as it was restored; the old queue's WAL was not laid over it.
    const listed = ok<Task[]>(await run(['--json', 'list'], { db }));
    expect(listed.map((t) => `${t.name} ${t.status}`)).toEqual(['restored pending']);
    expect(integrity(db)).toBe('ok');
  }, 30_000);
});
