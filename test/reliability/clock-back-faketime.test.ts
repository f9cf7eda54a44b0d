/**
 * A real `semaforo work` whose wall clock steps an hour back (libfaketime, monotonic clock left
 * real): a 2/s group keeps starting, a task enqueued after the step runs, an every-1s schedule
 * keeps firing. Skipped, with a printed line, where libfaketime is not installed
 * (`apt-get install faketime`; .ci/run installs it).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BIN, cli, freshDb } from '../cli/cli-helpers.ts';
import { exited, spawnNode, waitFor } from '../helpers.ts';

const LIB = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
].find((f) => fs.existsSync(f));
if (!LIB) process.stdout.write('skipped: libfaketime is not installed (apt-get install faketime)\n');

describe.skipIf(!LIB)('under libfaketime', () => {
  it('a worker whose wall clock steps an hour back keeps starting tasks and firing schedules', async () => {
    const db = freshDb();
    const offset = path.join(path.dirname(db), 'faketime');
    fs.writeFileSync(offset, '+0\n');
    const env = {
      LD_PRELOAD: LIB!,
      FAKETIME_TIMESTAMP_FILE: offset,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    };
    const run = async (args: string[], stdin?: string) => {
      const r = await cli(args, { db, env, stdin });
      expect(r.code, r.stderr).toBe(0);
    };
    await run(['group', 'set', 'api', '--rate', '2/s']);
    const four = '{"kind":"sleep","group":"api","payload":{"ms":0}}\n'.repeat(4);
    await run(['enqueue', '--stdin'], four);
    const worker = spawnNode([BIN, '--db', db, 'work'], { SEMAFORO_HOME: path.dirname(db), ...env });
    const read = new Database(db, { readonly: true, fileMustExist: true });
    const count = (where: string) =>
      (read.prepare(`SELECT count(*) AS n FROM tasks WHERE ${where}`).get() as { n: number }).n;
    try {
      await waitFor(() => count("status = 'done'") === 4, 'the first four', 30_000);
      await run(['schedule', 'add', 'beat', '--every', '1s', '--kind', 'sleep', '--payload', '{"ms":0}']);
      await waitFor(() => count("group_name = 'default'") >= 1, 'the schedule fires', 30_000);
      fs.writeFileSync(offset, '-1h\n');
      await run(['enqueue', '--stdin'], four);
      await waitFor(
        () => count("group_name = 'api' AND status = 'done'") === 8,
        'four more after the step',
        30_000,
      );
      const fired = count("group_name = 'default'");
      await waitFor(() => count("group_name = 'default'") >= fired + 2, 'two fires after the step', 30_000);
    } finally {
      read.close();
      worker.kill('SIGTERM');
      await exited(worker);
    }
  }, 120_000);
});
