/**
 * What the CLI says, tried as spawned `semaforo` processes (issue 26): one-line errors with the
 * `semaforo:` prefix, help that lists the global options, and output that answers what a new
 * user asks (did it exist already, why did it fail, what does the worker do).
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../shared/domain.ts';
import { exited } from '../helpers.ts';
import { cli, cliOnTty, freshDb, json, startCli } from './cli-helpers.ts';

describe('commander and help', { timeout: 120_000 }, () => {
  it("reports commander's own errors in one line with the semaforo: prefix", async () => {
    for (const [args, line] of [
      [['nosuch'], "semaforo: unknown command 'nosuch' (add --help for usage)"],
      [['lst'], "semaforo: unknown command 'lst' (did you mean list?; add --help for usage)"],
      [['list', '--bogus'], "semaforo: unknown option '--bogus' (add --help for usage)"],
    ] as const) {
      const r = await cli(args);
      expect(r.stderr).toBe(`${line}\n`);
      expect(r.code).toBe(2);
    }
  });

  it('echoes a 100 KB argument in an error cut to its start and length, escapes shown as text', async () => {
    const big = 'x'.repeat(100_000);
    const cut = `"${'x'.repeat(60)}…" (100000 characters)`;
    for (const [args, line] of [
      [['show', big], `id: ${cut} is not a whole number`],
      [['list', '--status', big], `--status: ${cut} is not a status;`],
      [['enqueue', '--priority', big, '--', 'true'], `--priority: ${cut}`],
      [[`bogus${big}`], `unknown command 'bogus${'x'.repeat(55)}…' (100005 characters)`],
    ] as const) {
      const r = await cli(args);
      expect(r.code, line).toBe(2);
      expect(r.stderr.length, line).toBeLessThan(300);
      expect(r.stderr, line).toContain(`semaforo: ${line}`);
    }
    const r = await cli(['show', '\x1b]0;owned\x07']);
    expect(r.stderr).toBe('semaforo: id: "\\x1b]0;owned\\x07" is not a whole number\n');
  });

  it('lists the global options in the help of every subcommand', async () => {
    for (const args of [
      ['list', '--help'],
      ['schedule', 'add', '--help'],
      ['help', 'run'],
    ]) {
      const r = await cli(args);
      expect(r.stdout, args.join(' ')).toMatch(/Global Options:[\s\S]*--db <path>[\s\S]*--json/);
      expect(r.code).toBe(0);
    }
  });

  it('says in a cron error how many fields it has, not croner six- or seven-part words', async () => {
    const r = await cli(['schedule', 'preview', '--cron', '* * * *']);
    expect(r.stderr).toBe(
      'semaforo: --cron: is not a valid 5-field cron expression (minute hour day month weekday): it has 4 fields\n',
    );
  });
});

describe('enqueue, list and show', { timeout: 120_000 }, () => {
  it('enqueue --json --unique says existing: true when the key was held', async () => {
    const db = freshDb();
    const args = ['--json', 'enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--unique', 'k1'];
    const first = json<Task & { existing?: boolean }>(await cli(args, { db }));
    expect(first.existing).toBeUndefined();
    const again = json<Task & { existing?: boolean }>(await cli(args, { db }));
    expect(again).toMatchObject({ id: first.id, existing: true });
  });

  it('names an http task METHOD host/path, and --shell runs the command through the shell', async () => {
    const db = freshDb();
    const http = json<Task>(
      await cli(
        [
          '--json',
          'enqueue',
          '--kind',
          'http',
          '--payload',
          '{"method":"post","url":"https://api.example.com/v1/report?token=s"}',
        ],
        { db },
      ),
    );
    expect(http.name).toBe('POST api.example.com/v1/report');
    const r = await cli(['run', '--shell', '--', 'echo one two | wc -w'], { db });
    expect(r.stdout.trim()).toBe('2');
    expect(r.code).toBe(0);
  });

  it("shows a failure's exit code and stderr before its command, and not on a retried task", async () => {
    const db = freshDb();
    const t = json<Task>(
      await cli(
        ['--json', 'enqueue', '--max-attempts', '1', '--', 'sh', '-c', 'echo no such file >&2; exit 3'],
        {
          db,
        },
      ),
    );
    await cli(['work', '--drain'], { db });
    const failed = (await cli(['list'], { db })).stdout;
    expect(failed).toMatch(/exited with code 3: no such file \("sh -c/);
    await cli(['retry', String(t.id)], { db });
    const pending = (await cli(['list'], { db })).stdout.split('\n')[1]!;
    expect(pending).toMatch(/pending/);
    expect(pending).not.toMatch(/exited/);
    const shown = (await cli(['show', String(t.id)], { db })).stdout;
    expect(shown).toMatch(/action: retried\n|action: retried {2}on /);
    expect(shown).not.toMatch(/action: retried \(/);
  });

  it('show prints "held for" only while a run task waits', async () => {
    const db = freshDb();
    await cli(['run', '--', 'true'], { db });
    const [task] = json<Task[]>(await cli(['--json', 'list'], { db }));
    expect(task!.reservedFor).not.toBeNull();
    expect((await cli(['show', String(task!.id)], { db })).stdout).not.toMatch(/held for/);
  });

  it('says why each waiting task waits, in list, show and their JSON', async () => {
    const db = freshDb();
    const id = async (args: string[]) => json<Task>(await cli(['--json', 'enqueue', ...args], { db })).id;
    const paused = await id(['--group', 'nightly', '--', 'true']);
    expect((await cli(['pause', 'nightly'], { db })).code).toBe(0);
    const delayed = await id(['--delay', '10m', '--', 'true']);
    const ready = await id(['--', 'true']);
    type Listed = Task & { waiting: { code: string; message: string; until?: number } | null };
    const listed = json<Listed[]>(await cli(['--json', 'list'], { db }));
    const why = (n: number) => listed.find((t) => t.id === n)!.waiting;
    expect(why(paused)).toEqual({
      code: 'group-paused',
      message: 'group nightly is paused (semaforo resume nightly)',
      short: 'group paused',
    });
    expect(why(delayed)).toMatchObject({
      code: 'delayed',
      message: expect.stringMatching(/^delayed: runs in (9m\d+s|10m)$/),
    });
    expect(why(delayed)!.until).toBeGreaterThan(Date.now());
    expect(why(ready)!.code).toBe('ready');
    const human = await cli(['list'], { db });
    expect(human.stdout).toContain('ERROR / WAITING');
    expect(human.stdout).toContain('group nightly is paused (semaforo resume nightly)');
    const shown = json<Listed>(await cli(['--json', 'show', String(paused)], { db }));
    expect(shown.waiting?.code).toBe('group-paused');
    expect((await cli(['show', String(delayed)], { db })).stdout).toMatch(
      /\n {2}waiting {4}delayed: runs in/,
    );
  });

  it('where says which queue file is used and why', async () => {
    const db = freshDb();
    const r = json<{ db: string; dbFrom: string; exists: boolean }>(await cli(['--json', 'where'], { db }));
    expect(r).toMatchObject({ db, dbFrom: 'SEMAFORO_DB', exists: false });
    const flag = json<{ dbFrom: string }>(
      await cli(['--json', '--db', db, 'where'], { env: { SEMAFORO_DB: '' } }),
    );
    expect(flag.dbFrom).toBe('--db');
  });
});

describe('work', { timeout: 120_000 }, () => {
  it('-v logs each start and end; cancel of a running task says its worker stops it', async () => {
    const db = freshDb();
    const worker = await startCli(['-v', 'work'], db, 'dispatching');
    let log = '';
    worker.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const seen = (re: RegExp) =>
      new Promise<void>((resolve) => {
        const check = () => (re.test(log) ? resolve() : setTimeout(check, 50));
        check();
      });
    const t = json<Task>(
      await cli(['--json', 'enqueue', '--kind', 'sleep', '--payload', '{"ms":60000}'], { db }),
    );
    await seen(new RegExp(`started task ${t.id} \\(sleep: sleep\\), attempt 1 of 3`));
    const c = await cli(['cancel', String(t.id)], { db });
    expect(c.stdout).toBe(`stopping ${t.id}: it is running; its worker stops it and it ends cancelled\n`);
    await seen(new RegExp(`cancelled task ${t.id}`));
    const quick = json<Task>(
      await cli(['--json', 'enqueue', '--kind', 'sleep', '--payload', '{"ms":0}'], { db }),
    );
    await seen(new RegExp(`done task ${quick.id} \\(sleep: sleep\\) after`));
    worker.kill('SIGTERM');
    await exited(worker);
  });

  it('--drain says which task it waits for when the next is due later', async () => {
    const db = freshDb();
    const t = json<Task>(
      await cli(['--json', 'enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--delay', '10s'], { db }),
    );
    const r = await cli(['work', '--drain'], { db });
    expect(r.stderr).toMatch(new RegExp(`waiting for task ${t.id} \\(sleep\\), due in \\d+s at \\S+Z`));
    expect(r.code).toBe(0);
  });
});

describe('work on a terminal', { timeout: 120_000 }, () => {
  it('shows a live line: running, waiting, done, failed and when the next task is due', async () => {
    const db = freshDb();
    await cli(['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--delay', '8s'], { db });
    const r = await cliOnTty(['work', '--drain'], db);
    expect(r.output).toMatch(/draining: running 0, waiting 1, done 0, failed 0, next due in \d+s/);
    expect(r.output).toMatch(/drained/);
    expect(r.code).toBe(0);
  });
});
