/**
 * Files whose content runs as the user (the queue file, a handler module, the dashboard token)
 * are refused, with one line saying why and how to fix it, when another user could have written
 * them: owned by another user, or writable by group or others (the file or its folder). The
 * "another user" cases need a second account: as root the test makes one (useradd), elsewhere
 * it prints `skipped:`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, freshDb, json } from '../cli/cli-helpers.ts';

const OTHER = `semaforo-other-${process.pid}`;

/** The uid of a second user, made for this run; null (with a printed line) where it cannot be. */
function otherUser(): number | null {
  if (process.platform === 'win32' || process.getuid?.() !== 0) {
    process.stdout.write('skipped: the another-user cases need root here (to make a second user)\n');
    return null;
  }
  try {
    execFileSync('useradd', ['--system', '--no-create-home', OTHER], { stdio: 'ignore' });
    return Number(execFileSync('id', ['-u', OTHER], { encoding: 'utf8' }).trim());
  } catch {
    process.stdout.write('skipped: useradd failed; the another-user cases need a second user\n');
    return null;
  }
}
const other = otherUser();
afterAll(() => {
  if (other !== null) execFileSync('userdel', [OTHER], { stdio: 'ignore' });
});

/** A folder with a module that leaves a mark when it is imported. */
function handlerFolder(db: string): { dir: string; module: string; mark: string } {
  const dir = path.join(path.dirname(db), 'handlers');
  fs.mkdirSync(dir, { mode: 0o700 });
  const mark = path.join(path.dirname(db), 'imported');
  const module = path.join(dir, 'planted.mjs');
  fs.writeFileSync(
    module,
    `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(mark)}, 'ran');
     export default { kind: 'planted', description: 'x', run() {} };`,
    { mode: 0o600 },
  );
  return { dir, module, mark };
}

const posix = process.platform !== 'win32';

describe.skipIf(!posix)('files another user could have written are refused', () => {
  it('a queue file writable by others, or in a folder writable by others', async () => {
    const db = freshDb();
    expect((await cli(['stats'], { db })).code).toBe(0);
    fs.chmodSync(db, 0o666);
    const r = await cli(['enqueue', '--', 'id'], { db });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^semaforo: .*refusing the queue file .*queue\.db: it is writable by others \(mode 666\).*\(fix: chmod go-w .*queue\.db\)$/,
    );
    fs.chmodSync(db, 0o600);
    fs.chmodSync(path.dirname(db), 0o777);
    const f = await cli(['stats'], { db });
    expect([f.code, f.stderr]).toEqual([
      1,
      expect.stringMatching(/refusing the folder .* holding the queue file: it is writable by others/),
    ]);
    fs.chmodSync(path.dirname(db), 0o700);
    expect((await cli(['stats'], { db })).code).toBe(0);
  });

  it('a handler module, or its folder, writable by others is not imported', async () => {
    const db = freshDb();
    const { dir, module, mark } = handlerFolder(db);
    fs.chmodSync(module, 0o666);
    const r = await cli(['--handlers', dir, 'work', '--drain'], { db });
    expect(r.stderr).toMatch(/planted\.mjs not loaded: refusing the handler module .*writable by others/);
    fs.chmodSync(module, 0o600);
    fs.chmodSync(dir, 0o777);
    const f = await cli(['--handlers', dir, 'work', '--drain'], { db });
    expect(f.stderr).toMatch(/not loaded: refusing the handler folder .*handlers: it is writable by others/);
    expect(fs.existsSync(mark)).toBe(false);
  });

  it.skipIf(other === null)('a queue file of another user (its tasks would run as the opener)', async () => {
    const db = freshDb();
    expect((await cli(['enqueue', '--', 'id'], { db })).code).toBe(0);
    fs.chownSync(db, other!, other!);
    const r = await cli(['work', '--drain'], { db });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`refusing the queue file .*: it is owned by another user \\(uid ${other}\\)`),
    );
    // One line: it never said it was dispatching from the file it refused.
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it.skipIf(other === null)(
    "the queue's -wal or -journal of another user (SQLite would replay it)",
    async () => {
      const db = freshDb();
      expect((await cli(['enqueue', '--', 'true'], { db })).code).toBe(0);
      for (const suffix of ['-wal', '-journal']) {
        fs.writeFileSync(db + suffix, 'planted');
        fs.chownSync(db + suffix, other!, other!);
        const r = await cli(['list'], { db });
        expect([r.code, r.stderr.trim()]).toEqual([
          1,
          expect.stringMatching(
            new RegExp(`refusing the queue's ${suffix} file .*${suffix}: it is owned by another user`),
          ),
        ]);
        fs.rmSync(db + suffix);
      }
      expect(json<unknown[]>(await cli(['--json', 'list'], { db }))).toHaveLength(1);
    },
  );

  it.skipIf(other === null)('a handler module of another user is not imported', async () => {
    const db = freshDb();
    const { dir, module, mark } = handlerFolder(db);
    fs.chownSync(module, other!, other!);
    const r = await cli(['--handlers', dir, 'work', '--drain'], { db });
    expect(r.stderr).toMatch(/refusing the handler module .*planted\.mjs: it is owned by another user/);
    expect(fs.existsSync(mark)).toBe(false);
  });

  it.skipIf(other === null)('a serve-token planted by another user is not adopted', async () => {
    const db = freshDb();
    const token = path.join(path.dirname(db), 'serve-token');
    fs.writeFileSync(token, `${'ab'.repeat(32)}\n`, { mode: 0o644 });
    fs.chownSync(token, other!, other!);
    const r = await cli(['serve', '--port', '0', '--no-work'], { db });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refusing the dashboard token .*serve-token: it is owned by another user/);
    expect(r.stdout).not.toMatch(/abab/);
  });
});
