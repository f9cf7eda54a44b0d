/**
 * Ways a handler or a signal can end an attempt that once looked like success, or like nothing:
 * a rejection with no error (`throw null`), a handler that exits the process, and a SIGTERM that
 * arrives the moment `work` says it is dispatching.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Task, TaskWithHistory } from '../../shared/domain.ts';
import { BIN, cli, freshDb, json } from '../cli/cli-helpers.ts';
import { exited, waitFor } from '../helpers.ts';

function handlersDir(db: string, modules: Record<string, string>): string {
  const dir = path.join(path.dirname(db), 'handlers');
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(modules)) fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

const kind = (name: string, run: string) =>
  `export default { kind: '${name}', description: 'ends oddly', run: ${run} };`;

describe('odd endings', () => {
  it('throw null, Promise.reject(null) and throw undefined are failures, and work --drain exits 1', async () => {
    const db = freshDb();
    const dir = handlersDir(db, {
      'a.mjs': kind('throws-null', 'async () => { throw null; }'),
      'b.mjs': kind('rejects-null', '() => Promise.reject(null)'),
      'c.mjs': kind('throws-undefined', 'async () => { throw undefined; }'),
    });
    for (const k of ['throws-null', 'rejects-null', 'throws-undefined'])
      expect(
        (await cli(['--handlers', dir, 'enqueue', '--kind', k, '--max-attempts', '1'], { db })).code,
      ).toBe(0);
    const drain = await cli(['--handlers', dir, 'work', '--drain'], { db });
    expect(drain.code, drain.stderr).toBe(1);
    const tasks = json<Task[]>(await cli(['--json', 'list'], { db }));
    expect(tasks.map((t) => [t.kind, t.status, t.error])).toEqual(
      expect.arrayContaining([
        ['throws-null', 'failed', 'the handler threw null (no error given)'],
        ['rejects-null', 'failed', 'the handler threw null (no error given)'],
        ['throws-undefined', 'failed', 'the handler threw undefined (no error given)'],
      ]),
    );
  });

  it('process.exit(0) inside a handler ends work --drain with 1, and the task goes back as a lost attempt', async () => {
    const db = freshDb();
    const dir = handlersDir(db, { 'quits.mjs': kind('quits', '() => process.exit(0)') });
    expect(
      (await cli(['--handlers', dir, 'enqueue', '--kind', 'quits', '--max-attempts', '1'], { db })).code,
    ).toBe(0);
    const drain = await cli(['--handlers', dir, 'work', '--drain'], { db });
    expect(drain.code).toBe(1);
    expect(drain.stderr).toMatch(/ended \(process\.exit\) while dispatching/);
    // The next worker finds the owner gone and ends the attempt (its only one) as lost.
    await cli(['--handlers', dir, 'work', '--drain'], { db });
    const t = json<TaskWithHistory>(await cli(['--json', 'show', '1'], { db }));
    expect([t.status, t.history.map((h) => h.outcome)]).toEqual(['failed', ['lost']]);
  });

  it('a SIGTERM right after "dispatching from" stops work gracefully (143), never by the signal', async () => {
    const db = freshDb();
    await cli(['enqueue', '--kind', 'sleep', '--payload', '{"ms":600000}'], { db });
    // The worker stops itself just after writing the line, as a loaded machine may deschedule
    // it there; the SIGTERM is then pending when it resumes.
    const pause = path.join(path.dirname(db), 'pause-when-ready.mjs');
    fs.writeFileSync(
      pause,
      `const write = process.stderr.write.bind(process.stderr);
       process.stderr.write = (chunk, ...rest) => {
         const r = write(chunk, ...rest);
         if (String(chunk).includes('dispatching from')) process.kill(process.pid, 'SIGSTOP');
         return r;
       };`,
    );
    const worker = spawn(
      process.execPath,
      ['--import', pause, BIN, '--db', db, 'work', '--drain', '--grace', '10ms'],
      {
        env: { ...process.env, SEMAFORO_HOME: path.dirname(db) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    await new Promise<void>((resolve) =>
      worker.stderr.on(
        'data',
        (d: Buffer) => (stderr += d.toString()).includes('dispatching from') && resolve(),
      ),
    );
    // Signal only once it has stopped: a SIGCONT that came before its SIGSTOP would be spent,
    // and it would stay stopped.
    await waitFor(
      () => fs.readFileSync(`/proc/${worker.pid}/stat`, 'utf8').split(') ')[1]?.startsWith('T'),
      'the worker to stop itself',
    );
    worker.kill('SIGTERM');
    worker.kill('SIGCONT');
    const code = await exited(worker);
    expect([code, worker.signalCode]).toEqual([143, null]);
    expect(stderr).toMatch(/stopped by SIGTERM before the queue was drained/);
  });
});
