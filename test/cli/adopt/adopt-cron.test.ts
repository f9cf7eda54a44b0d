/**
 * `semaforo adopt` against the real cron daemon (Debian's `cron`), with a test user's crontab:
 * after `adopt --apply` its lines run through the queue within their minute; after `--undo`
 * `crontab -l` gives back the very bytes it gave before. Needs root (a user, a daemon); skipped
 * with a printed line elsewhere. One wait for cron's next minute: about a minute of wall time.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../../shared/domain.ts';
import { outputOf } from '../../process-output.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const USER = `semaforo-cron-${process.pid}`;
const CRONTAB = `# jobs of the test user
SHELL=/bin/sh
* * * * * echo "tick $(date +\\%s)" >> $HOME/ticks.txt
*  *  * * *   touch $HOME/touched
`;

function whyNot(): string | null {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'not root';
  for (const tool of ['/usr/sbin/cron', '/usr/bin/crontab', '/usr/sbin/useradd', '/usr/sbin/runuser'])
    if (!fs.existsSync(tool)) return `${tool} is not installed (apt-get install -y cron)`;
  return null;
}
const skip = whyNot();
if (skip) console.log(`skipped: adopt against the real cron daemon (${skip})`);

let home = '';
let base = '';
let daemon: ChildProcess | null = null;

/** A command as the test user, in a bare environment like cron's. */
function asUser(args: string[]) {
  const env = ['env', '-i', `HOME=${home}`, 'PATH=/usr/bin:/bin', `USER=${USER}`, `LOGNAME=${USER}`];
  return outputOf(
    spawn('/usr/sbin/runuser', ['-u', USER, '--', ...env, ...args], {
      cwd: home,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

beforeAll(() => {
  if (skip) return;
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'semaforo-cron-'));
  fs.chmodSync(base, 0o755);
  home = path.join(base, 'home');
  const add = spawnSync('/usr/sbin/useradd', ['-m', '-d', home, '-s', '/bin/sh', USER], { encoding: 'utf8' });
  if (add.status !== 0) throw new Error(`useradd: ${add.stderr}`);
  const put = spawnSync('/usr/bin/crontab', ['-u', USER, '-'], { input: CRONTAB, encoding: 'utf8' });
  if (put.status !== 0) throw new Error(`crontab: ${put.stderr}`);
  // Our own daemon: where a live one runs already, ours exits at once on its pid file's lock and
  // that one reads every user's crontab anyway. Asking pgrep first was not enough: a cron process
  // that was ending (or a zombie) made the test start none, and no line ever ran.
  daemon = spawn('/usr/sbin/cron', ['-f'], { stdio: 'ignore' });
});

/**
 * Cron notices a changed crontab by its folder's mtime, in whole seconds: a crontab installed in
 * the second in which a daemon (re)loaded them all is never seen. The daemon loads them at start
 * (it has written its pid file by then) and at each minute's start, so `adopt --apply` waits
 * until both are at least a second behind it.
 */
async function pastCronsLoadSecond(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !cronHasStarted()) await new Promise((r) => setTimeout(r, 50));
  const loaded = Math.floor(Date.now() / 1000);
  for (;;) {
    const now = new Date();
    const second = now.getSeconds();
    if (Math.floor(now.getTime() / 1000) > loaded && second >= 2 && second <= 57) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A live cron daemon's pid is in its pid file (ours, or one that ran already). */
function cronHasStarted(): boolean {
  try {
    const pid = Number(fs.readFileSync('/var/run/crond.pid', 'utf8').trim());
    return pid > 0 && fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'cron';
  } catch {
    return false;
  }
}

afterAll(() => {
  if (skip) return;
  spawnSync('/usr/bin/crontab', ['-u', USER, '-r']);
  spawnSync('/usr/sbin/userdel', [USER]);
  daemon?.kill();
  fs.rmSync(base, { recursive: true, force: true });
});

describe.skipIf(skip !== null)('adopt with the cron daemon', () => {
  it('runs the adopted lines through the queue within their minute; undo restores the crontab', async () => {
    const node = path.join(ROOT, 'node_modules/node/bin/node');
    const access = await asUser(['test', '-x', node]);
    expect(access.code, `the test user cannot run ${node}`).toBe(0);
    const installed = await asUser([node, path.join(ROOT, 'bin/semaforo.js'), 'install-cli']);
    expect(installed.code, installed.stderr).toBe(0);
    const semaforo = path.join(home, '.local/bin/semaforo');

    await pastCronsLoadSecond();
    const applied = await asUser([semaforo, 'adopt', '--apply']);
    expect(applied.code, applied.stderr).toBe(0);
    const now = spawnSync('/usr/bin/crontab', ['-u', USER, '-l'], { encoding: 'utf8' }).stdout.split('\n');
    expect(now[2]).toBe(
      `* * * * * ${semaforo} run -q --group default --name echo -- /bin/sh -c 'echo "tick $(date +\\%s)" >> $HOME/ticks.txt'`,
    );
    expect(now[3]).toBe(
      `*  *  * * *   ${semaforo} run -q --group default --name touch -- /bin/sh -c 'touch $HOME/touched'`,
    );

    // Cron starts both at its next minute; each runs as a task of the user's queue.
    const deadline = Date.now() + 150_000;
    let tasks: Task[] = [];
    while (Date.now() < deadline) {
      const r = await asUser([semaforo, '--json', 'list']);
      tasks = r.code === 0 ? (JSON.parse(r.stdout) as Task[]) : [];
      const done = new Set(tasks.filter((t) => t.status === 'done').map((t) => t.name));
      if (done.has('echo') && done.has('touch')) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    const echo = tasks.find((t) => t.name === 'echo' && t.status === 'done');
    const touch = tasks.find((t) => t.name === 'touch' && t.status === 'done');
    expect(echo, JSON.stringify(tasks)).toBeDefined();
    expect(touch).toBeDefined();
    // Started within the minute cron fired it, and did what the line says, in $HOME.
    for (const t of [echo!, touch!])
      expect(t.startedAt! - Math.floor(t.createdAt / 60_000) * 60_000).toBeLessThan(60_000);
    expect(echo!.payload).toMatchObject({ cwd: home });
    expect(fs.readFileSync(path.join(home, 'ticks.txt'), 'utf8')).toMatch(/^tick \d+\n/);
    expect(fs.existsSync(path.join(home, 'touched'))).toBe(true);

    const undone = await asUser([semaforo, 'adopt', '--undo']);
    expect(undone.code, undone.stderr).toBe(0);
    const restored = spawnSync('/usr/bin/crontab', ['-u', USER, '-l']).stdout;
    expect(Buffer.compare(restored, Buffer.from(CRONTAB))).toBe(0);
  }, 240_000);
});
