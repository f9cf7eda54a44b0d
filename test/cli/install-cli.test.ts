/**
 * `semaforo install-cli` and the launcher it writes, called the way cron calls a line: a bare
 * environment (`env -i HOME=... PATH=/usr/bin:/bin`), no npm, a different working folder.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskWithHistory } from '../../shared/domain.ts';
import { tempDir } from '../helpers.ts';
import { outputOf } from '../process-output.ts';
import { cli } from './cli-helpers.ts';

function asCron(home: string, launcher: string, args: string[], cwd = home) {
  return outputOf(
    spawn('/usr/bin/env', ['-i', `HOME=${home}`, 'PATH=/usr/bin:/bin', launcher, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

describe('install-cli', () => {
  it('writes a launcher that works from a clean environment and prints only the command output', async () => {
    const home = tempDir();
    const dir = path.join(home, 'bin');
    const installed = await cli(['--json', 'install-cli', '--dir', dir]);
    expect(installed.code, installed.stderr).toBe(0);
    const launcher = path.join(dir, 'semaforo');
    expect(JSON.parse(installed.stdout)).toMatchObject({ launcher, onPath: false });
    expect(fs.statSync(launcher).mode & 0o111).not.toBe(0);

    expect(await asCron(home, launcher, ['--version'])).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });

    // `./job.sh` means what it meant where it was typed.
    const work = path.join(home, 'work');
    fs.mkdirSync(work);
    fs.writeFileSync(path.join(work, 'job.sh'), '#!/bin/sh\necho "job in $(pwd)"\n', { mode: 0o755 });
    const enq = await asCron(home, launcher, ['enqueue', '--', './job.sh'], work);
    expect(enq).toEqual({ code: 0, stdout: '1\n', stderr: '' });
    const shown = await asCron(home, launcher, ['show', '1']);
    expect(shown.stdout).toMatch(new RegExp(`^  cwd        ${work}$`, 'm'));
    const t = JSON.parse((await asCron(home, launcher, ['--json', 'show', '1'])).stdout) as TaskWithHistory;
    expect(t.payload).toEqual({ command: './job.sh', args: [], cwd: work });

    const run = await asCron(home, launcher, ['run', '-q', '--', './job.sh'], work);
    expect(run).toEqual({ code: 0, stdout: `job in ${work}\n`, stderr: '' });
    // The default queue of that HOME, as the tray app would open it.
    expect(fs.existsSync(path.join(home, '.config/Semaforo/queue.db'))).toBe(true);
  });

  it('run says why it ended when its command did not, exit codes unchanged', async () => {
    const home = tempDir();
    const launcher = path.join(home, 'semaforo');
    expect((await cli(['install-cli', '--dir', home])).code).toBe(0);
    expect(await asCron(home, launcher, ['run', '-q', '--timeout', '1s', '--', 'sleep', '30'])).toEqual({
      code: 124,
      stdout: '',
      stderr: 'semaforo: timed out after 1s\n',
    });
    expect(await asCron(home, launcher, ['run', '-q', '--', '/nonexistent/cmd'])).toEqual({
      code: 127,
      stdout: '',
      stderr: 'semaforo: command not found: /nonexistent/cmd\n',
    });
    // A command that fails by itself speaks for itself.
    expect(await asCron(home, launcher, ['run', '-q', '--', 'sh', '-c', 'echo no >&2; exit 3'])).toEqual({
      code: 3,
      stdout: '',
      stderr: 'no\n',
    });
  });

  it('replaces its own launcher but not a stranger file without --force', async () => {
    const dir = tempDir();
    expect((await cli(['install-cli', '--dir', dir])).code).toBe(0);
    expect((await cli(['install-cli', '--dir', dir])).code).toBe(0);
    fs.writeFileSync(path.join(dir, 'semaforo'), '#!/bin/sh\necho mine\n');
    const refused = await cli(['install-cli', '--dir', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not a Semaforo launcher; use --force/);
    expect(fs.readFileSync(path.join(dir, 'semaforo'), 'utf8')).toBe('#!/bin/sh\necho mine\n');
    expect((await cli(['install-cli', '--dir', dir, '--force'])).code).toBe(0);
  });
});
