/**
 * The traps a new user fell into (issue 26), each tried as a spawned `semaforo` process: a
 * duration without a unit, a purge that asks, a typo that used to succeed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../shared/domain.ts';
import { tempDir } from '../helpers.ts';
import { BIN, cli, cliOnTty, freshDb, json } from './cli-helpers.ts';

describe('a duration without a unit', { timeout: 120_000 }, () => {
  it('is refused by every option that takes one, naming the option and what to write', async () => {
    const db = freshDb();
    for (const [args, option] of [
      [['run', '--timeout', '600', '--', 'true'], '--timeout'],
      [['enqueue', '--kind', 'sleep', '--delay', '10'], '--delay'],
      [['purge', '--older-than', '30'], '--older-than'],
      [['schedule', 'add', 'x', '--every', '500', '--kind', 'sleep'], '--every'],
      [['settings', '--retention', '30'], '--retention'],
      [['work', '--drain', '--grace', '5'], '--grace'],
    ] as const) {
      const r = await cli(args, { db });
      expect(r.stderr, args.join(' ')).toMatch(new RegExp(`^semaforo: ${option}: "\\d+" has no unit; write`));
      expect(r.code).toBe(2);
    }
    expect(json<unknown[]>(await cli(['--json', 'list'], { db }))).toEqual([]);
    expect(json<unknown[]>(await cli(['--json', 'schedule', 'list'], { db }))).toEqual([]);
  });

  it('is refused in --stdin specs, which take "30s" or a field named ...Ms', async () => {
    const db = freshDb();
    const bad = await cli(['enqueue', '--stdin'], {
      db,
      stdin: [
        '{"kind":"sleep","payload":{"ms":0}}',
        '',
        '{"kind":"sleep","timeout":600,"payload":{"ms":0}}',
      ].join('\n'),
    });
    expect(bad.stderr).toBe(
      'semaforo: line 3: timeout: use a duration like "30s" or a number of milliseconds in timeoutMs\n',
    );
    expect(bad.code).toBe(2);
    const ok = json<{ timeout: number; runAt: number; createdAt: number }[]>(
      await cli(['--json', 'enqueue', '--stdin'], {
        db,
        stdin:
          '{"kind":"sleep","timeout":"10m","delay":"1h","payload":{"ms":0}}\n' +
          '{"kind":"sleep","timeoutMs":600,"delayMs":0,"payload":{"ms":0}}\n',
      }),
    );
    expect(ok.map((t) => t.timeout)).toEqual([600_000, 600]);
    expect(ok[0]!.runAt - ok[0]!.createdAt).toBe(3600_000);
  });
});

describe('purge', { timeout: 120_000 }, () => {
  async function finishedTasks(db: string, n: number) {
    for (let i = 0; i < n; i++) await cli(['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}'], { db });
    expect((await cli(['work', '--drain'], { db })).code).toBe(0);
  }

  it('on a terminal says what it will delete and deletes nothing unless told yes', async () => {
    const db = freshDb();
    await finishedTasks(db, 2);
    const no = await cliOnTty(['purge', '--older-than', '0s'], db, { prompt: '[y/N]', answer: 'n' });
    expect(no.output).toMatch(/purge will delete 2 finished task\(s\) \(done 2\) that ended before \S+Z/);
    expect(no.output).toMatch(/nothing deleted/);
    expect(json<unknown[]>(await cli(['--json', 'list'], { db }))).toHaveLength(2);
    const yes = await cliOnTty(['purge', '--older-than', '0s'], db, { prompt: '[y/N]', answer: 'y' });
    expect(yes.output).toMatch(/purged 2 finished task\(s\) \(done 2\)/);
    expect(json<unknown[]>(await cli(['--json', 'list'], { db }))).toHaveLength(0);
  });

  it('with --yes, or without a terminal, does not ask and says what it deleted', async () => {
    const db = freshDb();
    await finishedTasks(db, 1);
    const r = await cliOnTty(['purge', '--older-than', '0s', '--yes'], db);
    expect(r.output).not.toMatch(/\[y\/N\]/);
    expect(r.output).toMatch(/purged 1 finished task\(s\) \(done 1\)/);
    await finishedTasks(db, 1);
    const piped = await cli(['--json', 'purge', '--older-than', '0s'], { db });
    expect(json<{ count: number }>(piped).count).toBe(1);
    expect((await cli(['purge', '--older-than', '1d'], { db })).stdout).toMatch(/^nothing to purge/);
  });
});

describe('a worker without your handler folder', { timeout: 120_000 }, () => {
  it('leaves a task of a kind it lacks pending, says so, and runs every other task', async () => {
    const db = freshDb();
    const handlers = path.join(path.dirname(db), 'my-kinds'); // not the default <home>/handlers
    fs.mkdirSync(handlers);
    fs.writeFileSync(
      path.join(handlers, 'greet.mjs'),
      "export default { kind: 'greet', description: 'says hi', run: async () => ({ hi: 1 }) };\n",
    );
    const greet = json<Task>(
      await cli(['--json', '--handlers', handlers, 'enqueue', '--kind', 'greet'], { db }),
    );
    const sleep = json<Task>(
      await cli(['--json', 'enqueue', '--kind', 'sleep', '--payload', '{"ms":0}'], { db }),
    );
    const plain = await cli(['work', '--drain'], { db });
    expect(plain.stderr).toMatch(/1 task\(s\) of kind greet wait for a worker that has it/);
    expect(plain.code).toBe(1);
    const after = json<Task[]>(await cli(['--json', 'list'], { db }));
    expect(after.find((t) => t.id === greet.id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      error: null,
    });
    expect(after.find((t) => t.id === sleep.id)!.status).toBe('done');
    expect((await cli(['show', String(greet.id)], { db })).stdout).toMatch(
      /waiting {4}for a worker that has kind "greet"/,
    );
    expect((await cli(['--handlers', handlers, 'work', '--drain'], { db })).code).toBe(0);
    expect(json<Task>(await cli(['--json', 'show', String(greet.id)], { db })).status).toBe('done');
  });
});

describe('your handler modules', { timeout: 120_000 }, () => {
  it('are imported (their code run) only by a command that runs tasks or names your kind', async () => {
    const db = freshDb();
    const handlers = path.join(path.dirname(db), 'handlers'); // the default folder
    fs.mkdirSync(handlers, { mode: 0o700 });
    const marker = path.join(path.dirname(db), 'imported-by');
    fs.writeFileSync(
      path.join(handlers, 'greet.mjs'),
      "import fs from 'node:fs';\n" +
        `fs.appendFileSync(${JSON.stringify(marker)}, process.argv.slice(2).join(' ') + '\\n');\n` +
        "export default { kind: 'greet', description: 'says hi', run: async () => ({ hi: 1 }) };\n",
      { mode: 0o600 },
    );
    const importers = () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim().split('\n') : []);
    const shell = json<Task>(await cli(['--json', 'enqueue', '--', 'true'], { db }));
    for (const [args, stdin] of [
      [['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}']],
      [['enqueue', '--stdin'], '{"kind":"shell","payload":{"command":"true"}}\n'],
      [['schedule', 'add', 'nightly', '--cron', '0 3 * * *', '--', 'true']],
      [['show', String(shell.id)]],
      [['cancel', String(shell.id)]],
    ] as const)
      expect((await cli(args, { db, stdin })).code, args.join(' ')).toBe(0);
    expect(importers()).toEqual([]);
    const greet = json<Task>(await cli(['--json', 'enqueue', '--kind', 'greet'], { db }));
    expect(importers()).toEqual(['--json enqueue --kind greet']);
    // show does not run it, and cannot tell whether some worker has it: it does not guess
    expect((await cli(['show', String(greet.id)], { db })).stdout).not.toMatch(/for a worker that has kind/);
    expect(importers()).toHaveLength(1);
    expect((await cli(['work', '--drain'], { db })).code).toBe(0);
    expect(importers()).toEqual(['--json enqueue --kind greet', 'work --drain']);
  });
});

describe('a reader that closes the pipe early', { timeout: 120_000 }, () => {
  it('ends the CLI quietly with 141, as coreutils do, without a stack trace', async () => {
    const db = freshDb();
    const specs = Array.from({ length: 1000 }, (_, i) =>
      JSON.stringify({ kind: 'sleep', name: `t${i}`, payload: { ms: 0 } }),
    );
    await cli(['enqueue', '--stdin'], { db, stdin: specs.join('\n') });
    const child = spawn(process.execPath, [BIN, '--db', db, '--json', 'list', '--limit', '1000'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy(); // as `| true` does: the reader is gone before the first write
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(141);
  });

  it.skipIf(!fs.existsSync('/dev/full'))(
    'says a write error on a full disk in one line, with 1',
    async () => {
      const db = freshDb();
      await cli(['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}'], { db });
      const full = fs.openSync('/dev/full', 'w');
      const child = spawn(process.execPath, [BIN, '--db', db, '--json', 'list'], {
        stdio: ['ignore', full, 'pipe'],
      });
      fs.closeSync(full);
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(stderr).toMatch(/^semaforo: write error on stdout: ENOSPC: no space left on device[^\n]*\n$/);
      expect(code).toBe(1);
    },
  );
});

describe('a name that matches nothing', { timeout: 120_000 }, () => {
  it('is an error with one line and exit 1, and changes nothing', async () => {
    const db = freshDb();
    await cli(['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}'], { db });
    const cases: [string[], RegExp][] = [
      [['pause', 'nosuchgroup'], /^semaforo: group "nosuchgroup" does not exist \(groups: default\)/],
      [['resume', 'nosuchgroup'], /^semaforo: group "nosuchgroup" does not exist/],
      [['delete', '1', '999'], /^semaforo: task 999 does not exist\n$/],
      [['cancel', '999'], /^semaforo: task 999 does not exist\n$/],
      [['--handlers', '/nonexistent', 'kinds'], /^semaforo: --handlers: \/nonexistent is not a folder/],
      [
        ['--handlers', '/nonexistent', 'work', '--drain'],
        /^semaforo: --handlers: \/nonexistent is not a folder/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args, { db });
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.code, args.join(' ')).toBe(1);
    }
    const tasks = json<Task[]>(await cli(['--json', 'list'], { db }));
    expect(tasks).toHaveLength(1);
    expect(
      json<{ groups: { name: string }[] }>(await cli(['--json', 'stats'], { db })).groups.map((g) => g.name),
    ).toEqual(['default']);
    expect(json<{ paused: boolean }>(await cli(['--json', 'settings'], { db })).paused).toBe(false);
  });

  it('--db in a folder that does not exist: readers refuse, writers create it and say so', async () => {
    const missing = path.join(tempDir(), 'no', 'such', 'q.db');
    for (const args of [['list'], ['show', '1'], ['stats'], ['schedule', 'list']]) {
      const r = await cli(['--db', missing, ...args]);
      expect(r.stderr, args.join(' ')).toBe(
        `semaforo: no queue at ${missing}: the folder ${path.dirname(missing)} does not exist (check --db)\n`,
      );
      expect(r.code).toBe(1);
    }
    expect(fs.existsSync(path.dirname(path.dirname(missing)))).toBe(false);
    const w = await cli(['--db', missing, 'enqueue', '--kind', 'sleep', '--payload', '{"ms":0}']);
    expect(w.stderr).toBe(`semaforo: creating the folder ${path.dirname(missing)} for a new queue\n`);
    expect(w.code).toBe(0);
    expect(json<Task[]>(await cli(['--db', missing, '--json', 'list']))).toHaveLength(1);
  });
});

/** An ES module with a syntax error at line 3, column 17. */
const BROKEN_ESM = "export default {\n  kind: 'b',\n  run: () => 1 +;\n};\n";

/** A fresh queue and a folder of handler modules holding `files` (name -> text). */
function kindsFolder(files: Record<string, string>): { db: string; dir: string } {
  const db = freshDb();
  const dir = path.join(path.dirname(db), 'kinds');
  fs.mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return { db, dir };
}

describe('user handler modules', { timeout: 120_000 }, () => {
  it('load from .cjs too; a syntax error names its line and column, and kinds then exits 1', async () => {
    const { db, dir } = kindsFolder({
      'hello.cjs':
        "module.exports = { kind: 'hello', description: 'CommonJS kind', run: async () => 'hi' };\n",
    });
    const good = await cli(['--json', '--handlers', dir, 'kinds'], { db });
    expect(json<{ kinds: { kind: string }[] }>(good).kinds.map((k) => k.kind)).toContain('hello');
    fs.writeFileSync(path.join(dir, 'broken.mjs'), BROKEN_ESM);
    const bad = await cli(['--handlers', dir, 'kinds'], { db });
    expect(bad.stdout).toMatch(
      /could not load \S*broken\.mjs: syntax error at line 3, column \d+: Unexpected token/,
    );
    expect(bad.stdout).toMatch(/^hello +\(yours\) CommonJS kind$/m);
    expect(bad.code).toBe(1);
  });

  it('names the line and column of a syntax error in a .js ES module outside a module package', async () => {
    // No package.json: Node's own `--check` takes this file for CommonJS and passes it.
    const { db, dir } = kindsFolder({ 'broken.js': BROKEN_ESM });
    const bad = await cli(['--handlers', dir, 'kinds'], { db });
    expect(bad.stdout).toMatch(
      /could not load \S*broken\.js: syntax error at line 3, column 17: Unexpected token/,
    );
    expect(bad.code).toBe(1);
  });

  it("names no spot of its own for a CommonJS module's SyntaxError thrown while it runs", async () => {
    // `package` is a fine name in CommonJS, and a syntax error in an ES module.
    const { db, dir } = kindsFolder({
      'config.json': '{bad',
      'h.js':
        "const fs = require('fs');\nconst package = JSON.parse(fs.readFileSync(__dirname + '/config.json', 'utf8'));\nmodule.exports = { kind: 'h', run: () => package };\n",
    });
    const bad = await cli(['--handlers', dir, 'kinds'], { db });
    expect(bad.stdout).toMatch(/could not load \S*h\.js: syntax error: Expected property name/);
    expect(bad.code).toBe(1);
  });
});
