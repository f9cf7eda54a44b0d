import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.ts';
import { tempDir, testEngine, waitFor } from '../helpers.ts';
import type { Engine } from '../../electron/core/engine.ts';
import { canFindTagged } from '../../electron/core/handlers/attempt-tag.ts';

const node = process.execPath;
/** pids a test started indirectly (grandchildren); killed afterwards if a test failed midway */
const strays: number[] = [];

/** Alive and not a zombie (an orphan's zombie waits for an init that may never reap it). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
  }
});

const finished = (engine: Engine, id: number) =>
  waitFor(async () => {
    const t = await engine.getTask(id);
    return ['done', 'failed', 'cancelled'].includes(t.status) && t;
  }, `task ${id} finished`);

/**
 * A script that starts a grandchild (which ignores SIGTERM, so only SIGKILL ends it), writes
 * "childPid grandchildPid" to `pidFile` once the grandchild is listening, then waits forever.
 */
/**
 * A child that starts a grandchild ignoring SIGTERM; `setsid`: the grandchild leaves the process
 * group (a session of its own, as `setsid cmd &` does); `exitCode`: the child then exits with it.
 */
function treeScript(pidFile: string, o: { setsid?: boolean; exitCode?: number } = {}): string {
  const grandchild = `process.on('SIGTERM', () => {}); process.stdout.write('ready'); setInterval(() => {}, 1000);`;
  return `
    const { spawn } = require('node:child_process');
    const fs = require('node:fs');
    const g = spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: ['ignore', 'pipe', 'ignore'], detached: ${o.setsid === true} });
    g.stdout.once('data', () => {
      fs.writeFileSync(${JSON.stringify(pidFile)}, process.pid + ' ' + g.pid);
      ${o.exitCode === undefined ? '' : `g.stdout.destroy(); g.unref(); process.exit(${o.exitCode});`}
    });
    setInterval(() => {}, 1000);
  `;
}

async function pidsOf(pidFile: string): Promise<[number, number]> {
  const text = await waitFor(
    () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8'),
    'the process tree to start',
  );
  const [child, grandchild] = text.split(' ').map(Number) as [number, number];
  strays.push(child, grandchild);
  return [child, grandchild];
}

describe('shell kind', () => {
  it('runs a program without a shell, records stdout and stderr, and succeeds on exit code 0', async () => {
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({
      kind: 'shell',
      payload: {
        command: node,
        // `$HOME` must reach the program literally: no shell expands it.
        args: ['-e', 'console.log("out:" + process.argv[1]); console.error("err line")', '$HOME'],
      },
    });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('done');
    expect(t.result).toMatchObject({ exitCode: 0, lastLine: 'out:$HOME' });
    expect(t.history[0]!.output).toContain('out:$HOME');
    expect(t.history[0]!.output).toContain('err line');
    await engine.stop();
  });

  it('passes cwd and env to the program', async () => {
    const dir = fs.realpathSync(tempDir());
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({
      kind: 'shell',
      payload: {
        command: node,
        args: ['-e', 'console.log(process.cwd() + "|" + process.env.SEMAFORO_T + "|" + !!process.env.PATH)'],
        cwd: dir,
        env: { SEMAFORO_T: 'from-task' },
      },
    });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('done');
    // The task's env is added to the worker's, not a replacement for it (PATH survives).
    expect(t.history[0]!.output).toContain(`${dir}|from-task|true`);
    await engine.stop();
  });

  it.skipIf(process.platform === 'win32')(
    'runs a command line through a shell only when shell: true',
    async () => {
      const engine = await testEngine();
      engine.start();
      const { task } = await engine.enqueue({
        kind: 'shell',
        payload: { command: `echo piped | "${node}" -e "process.stdin.pipe(process.stdout)"`, shell: true },
      });
      const t = await finished(engine, task.id);
      expect(t.status).toBe('done');
      expect(t.history[0]!.output).toContain('piped');
      await engine.stop();
    },
  );

  it.skipIf(process.platform === 'win32')(
    'with shell: true, args reach the program as given (quoted), the command line is the shell’s',
    async () => {
      const engine = await testEngine();
      engine.start();
      const args = ['$HOME', "it's", 'a; echo injected', ''];
      const { task } = await engine.enqueue({
        kind: 'shell',
        payload: { command: 'printf "[%s]"', args, shell: true },
      });
      const t = await finished(engine, task.id);
      expect(t.status).toBe('done');
      expect(t.history[0]!.output).toBe("[$HOME][it's][a; echo injected][]");
      await engine.stop();
    },
  );

  it('finishes when the command exits, even if a background child it left still holds the output', async () => {
    const pidFile = path.join(tempDir(), 'pid');
    const engine = await testEngine();
    engine.start();
    const script = `
      const g = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' });
      require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(g.pid));
      console.log('started background job');
      g.unref();`;
    const { task } = await engine.enqueue({
      kind: 'shell',
      payload: { command: node, args: ['-e', script] },
    });
    const t = await finished(engine, task.id);
    strays.push(Number(fs.readFileSync(pidFile, 'utf8')));
    expect(t.status).toBe('done');
    expect(t.history[0]!.output).toContain('started background job');
    await engine.stop();
  });

  it('retries a non-zero exit, then fails with the exit code and the last stderr line', async () => {
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({
      kind: 'shell',
      maxAttempts: 2,
      payload: {
        command: node,
        args: ['-e', 'console.error("warming up"); console.error("disk quota exceeded"); process.exit(3)'],
      },
    });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('failed');
    expect(t.attempts).toBe(2);
    expect(t.error).toMatch(/exited with code 3: disk quota exceeded/);
    const attempts = t.history.filter((h) => h.type === 'attempt');
    expect(attempts.map((h) => h.outcome)).toEqual(['retry', 'failed']);
    expect(attempts[0]!.output).toContain('warming up');
    await engine.stop();
  });

  it('fails a missing executable after one attempt, naming the command', async () => {
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({
      kind: 'shell',
      maxAttempts: 3,
      payload: { command: 'semaforo-no-such-program-xyz', args: ['--flag'] },
    });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('failed');
    expect(t.attempts).toBe(1);
    expect(t.error).toMatch(/command not found: "semaforo-no-such-program-xyz"/);
    await engine.stop();
  });

  it('fails a missing cwd after one attempt, naming the folder', async () => {
    const engine = await testEngine();
    engine.start();
    const missing = path.join(tempDir(), 'gone');
    const { task } = await engine.enqueue({
      kind: 'shell',
      payload: { command: node, args: ['-e', ''], cwd: missing },
    });
    const t = await finished(engine, task.id);
    expect(t.status).toBe('failed');
    expect(t.attempts).toBe(1);
    expect(t.error).toContain(`cwd "${missing}" is not an existing folder`);
    await engine.stop();
  });

  it('refuses a bad payload at enqueue, naming each field', async () => {
    const engine = await testEngine();
    const bad = () =>
      engine.enqueue({ kind: 'shell', payload: { command: '', args: 'ls -l', env: { A: 1 }, shell: 'yes' } });
    await expect(bad()).rejects.toThrow(ValidationError);
    try {
      await bad();
    } catch (err) {
      const paths = (err as ValidationError).issues.map((i) => i.path);
      expect(paths).toEqual(
        expect.arrayContaining(['payload.command', 'payload.args', 'payload.env.A', 'payload.shell']),
      );
    }
    expect((await engine.stats()).counts.pending).toBe(0);
  });

  it('on timeout kills the whole process tree, even a grandchild that ignores SIGTERM', async () => {
    const pidFile = path.join(tempDir(), 'pids');
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({
      kind: 'shell',
      maxAttempts: 1,
      timeout: 3000,
      payload: { command: node, args: ['-e', treeScript(pidFile)] },
    });
    const [child, grandchild] = await pidsOf(pidFile);
    expect(alive(child) && alive(grandchild)).toBe(true);
    const t = await finished(engine, task.id);
    expect(t.status).toBe('failed');
    expect(t.error).toMatch(/timed out after 3000 ms/);
    // The handler settles only once the tree is gone, so no new attempt can overlap the old one.
    expect(alive(child)).toBe(false);
    expect(alive(grandchild)).toBe(false);
    await engine.stop();
  });

  it.skipIf(!canFindTagged)(
    "on timeout also stops a setsid'ed grandchild before the retry can start",
    async () => {
      const pidFile = path.join(tempDir(), 'pids');
      const engine = await testEngine();
      engine.start();
      const { task } = await engine.enqueue({
        kind: 'shell',
        maxAttempts: 1,
        timeout: 3000,
        payload: { command: node, args: ['-e', treeScript(pidFile, { setsid: true })] },
      });
      const [child, grandchild] = await pidsOf(pidFile);
      const t = await finished(engine, task.id);
      expect(t.error).toMatch(/timed out after 3000 ms/);
      expect(alive(child)).toBe(false);
      expect(alive(grandchild)).toBe(false);
      await engine.stop();
    },
  );

  it.skipIf(!canFindTagged)(
    'a failed exit has what it left in the background stopped before a retry; a success does not',
    async () => {
      const engine = await testEngine();
      engine.start();
      const pids = async (exitCode: number) => {
        const pidFile = path.join(tempDir(), 'pids');
        const { task } = await engine.enqueue({
          kind: 'shell',
          maxAttempts: 1,
          payload: { command: node, args: ['-e', treeScript(pidFile, { setsid: true, exitCode })] },
        });
        const [, grandchild] = await pidsOf(pidFile);
        return { task: await finished(engine, task.id), grandchild };
      };
      const failed = await pids(3);
      expect(failed.task.error).toMatch(/exited with code 3/);
      expect(alive(failed.grandchild)).toBe(false);
      const done = await pids(0);
      expect(done.task.status).toBe('done');
      expect(alive(done.grandchild)).toBe(true); // started on purpose: a success's is left alone
      await engine.stop();
    },
  );

  it('cancelling a running task kills its process tree and ends it cancelled', async () => {
    const pidFile = path.join(tempDir(), 'pids');
    const engine = await testEngine();
    engine.start();
    const { task } = await engine.enqueue({
      kind: 'shell',
      payload: { command: node, args: ['-e', treeScript(pidFile)] },
    });
    const [child, grandchild] = await pidsOf(pidFile);
    expect((await engine.getTask(task.id)).status).toBe('running');
    await engine.cancel([task.id]);
    const t = await finished(engine, task.id);
    expect(t.status).toBe('cancelled');
    expect(t.attempts).toBe(1);
    expect(alive(child)).toBe(false);
    expect(alive(grandchild)).toBe(false);
    await engine.stop();
  });
});
