import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Schedule, Task } from '../../shared/domain.ts';
import { exited, waitFor } from '../helpers.ts';
import { cli, freshDb, json, startCli } from './cli-helpers.ts';

// Each test spawns a dozen or more CLIs, seconds each on a loaded machine.
describe('semaforo schedule', { timeout: 120_000 }, () => {
  it('adds, lists, shows, pauses, resumes, runs now and removes a schedule', async () => {
    const db = freshDb();
    const added = json<Schedule>(
      await cli(
        [
          '--json',
          'schedule',
          'add',
          'nightly',
          '--cron',
          '30 2 * * *',
          '--tz',
          'Europe/Berlin',
          '--overlap',
          'skip',
          '--group',
          'backup',
          '--',
          'echo',
          'backed up',
        ],
        { db },
      ),
    );
    expect(added).toMatchObject({
      name: 'nightly',
      cron: '30 2 * * *',
      timezone: 'Europe/Berlin',
      overlap: 'skip',
      missed: 'skip',
      enabled: true,
      task: {
        kind: 'shell',
        name: null,
        group: 'backup',
        // the folder it was added in, as `enqueue` records: `./job.sh` means the same script later
        payload: { command: 'echo', args: ['backed up'], cwd: process.cwd() },
      },
    });
    expect(added.upcoming).toHaveLength(5);

    const list = await cli(['schedule', 'list'], { db });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/nightly\s+cron 30 2 \* \* \* \(Europe\/Berlin\)\s+in \S+\s+-\s+-\s+on/);

    const show = await cli(['schedule', 'show', 'nightly'], { db });
    expect(show.stdout).toContain('next due:');
    expect(show.stdout.match(/^ {4}\d{4}-\d\d-\d\dT01:30:00\.000Z/gm)).toHaveLength(5); // 02:30 CET

    expect((await cli(['schedule', 'pause', 'nightly'], { db })).stdout).toContain('paused nightly');
    expect(json<Schedule>(await cli(['--json', 'schedule', 'show', 'nightly'], { db })).enabled).toBe(false);
    expect((await cli(['schedule', 'resume', 'nightly'], { db })).stdout).toMatch(
      /^resumed nightly; next due /,
    );

    const task = json<Task>(await cli(['--json', 'schedule', 'run-now', 'nightly'], { db }));
    expect(task).toMatchObject({ name: 'nightly', group: 'backup', scheduleId: added.id, status: 'pending' });
    const after = json<Schedule>(await cli(['--json', 'schedule', 'show', 'nightly'], { db }));
    expect(after).toMatchObject({ lastTaskId: task.id, lastTaskStatus: 'pending' });

    expect((await cli(['schedule', 'remove', 'nightly'], { db })).stdout).toBe('removed nightly\n');
    expect(json<Schedule[]>(await cli(['--json', 'schedule', 'list'], { db }))).toEqual([]);
    // The task it enqueued stays.
    expect(json<Task>(await cli(['--json', 'show', String(task.id)], { db })).status).toBe('pending');
  });

  it("lists one schedule's tasks with list --schedule, and names an unknown schedule", async () => {
    const db = freshDb();
    for (const name of ['nightly', 'hourly'])
      await cli(['schedule', 'add', name, '--cron', '0 3 * * *', '--', 'echo', name], { db });
    const a = json<Task>(await cli(['--json', 'schedule', 'run-now', 'nightly'], { db }));
    await cli(['schedule', 'run-now', 'hourly'], { db });
    const b = json<Task>(await cli(['--json', 'schedule', 'run-now', 'nightly'], { db }));
    const listed = json<Task[]>(await cli(['--json', 'list', '--schedule', 'nightly'], { db }));
    expect(listed.map((t) => t.id)).toEqual([b.id, a.id]);
    const missing = await cli(['list', '--schedule', 'weekly'], { db });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/weekly/);
  });

  it('refuses invalid expressions and options with one line naming the option, and writes nothing', async () => {
    const db = freshDb();
    const cases: [string[], RegExp][] = [
      [
        ['--cron', '61 * * * *'],
        /^semaforo: --cron: is not a valid 5-field cron expression .*invalid minute: 61 \(0-59\)\n$/,
      ],
      [['--cron', '0 0 * * * *'], /^semaforo: --cron: is not a valid 5-field cron expression/],
      [['--cron', '* * * * *', '--tz', 'Nowhere/City'], /^semaforo: --tz: is not a known IANA time zone/],
      [['--every', 'soon'], /^semaforo: --every: "soon" is not a duration/],
      [['--every', '100ms'], /^semaforo: --every: must be from 1s to 366d/],
      [
        ['--every', '5m', '--cron', '* * * * *'],
        /^semaforo: --cron: give either --cron EXPR or --every DUR\n$/,
      ],
      [[], /^semaforo: --cron: give either --cron EXPR or --every DUR\n$/],
      [['--every', '5m', '--tz', 'UTC'], /^semaforo: --tz: goes with --cron only\n$/],
      [['--every', '5m', '--priority', '12'], /^semaforo: --priority: must be an integer from 0 to 9\n$/],
      [
        ['--every', '5m', '--missed', 'later'],
        /semaforo: option '--missed <policy>' argument 'later' is invalid/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await cli(['schedule', 'add', 'x', ...args, '--', 'true'], { db });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const noCommand = await cli(['schedule', 'add', 'x', '--every', '5m'], { db });
    expect(noCommand.stderr).toMatch(/--kind/);
    expect(json<Schedule[]>(await cli(['--json', 'schedule', 'list'], { db }))).toEqual([]);

    const missing = await cli(['schedule', 'show', 'ghost'], { db });
    expect([missing.code, missing.stderr]).toEqual([1, 'semaforo: schedule "ghost" does not exist\n']);
    const twice = await cli(['schedule', 'add', 'dup', '--every', '1h', '--', 'true'], { db });
    expect(twice.code).toBe(0);
    const again = await cli(['schedule', 'add', 'dup', '--every', '1h', '--', 'true'], { db });
    expect([again.code, again.stderr]).toEqual([1, 'semaforo: schedule "dup" already exists\n']);
  });

  it('updates only what the options name, keeps the rest, and refuses bad options writing nothing', async () => {
    const db = freshDb();
    const add = [
      'schedule',
      'add',
      'nightly',
      '--cron',
      '30 2 * * *',
      '--tz',
      'Europe/Berlin',
      '--grace',
      '15m',
    ];
    await cli(
      [...add, '--max-runtime', '1h', '--group', 'backup', '--priority', '3', '--', 'rsync', '-a', 'src'],
      { db },
    );
    await cli(['schedule', 'pause', 'nightly'], { db });
    const before = json<Schedule>(await cli(['--json', 'schedule', 'show', 'nightly'], { db }));
    const update = async (...args: string[]) =>
      json<Schedule>(await cli(['--json', 'schedule', 'update', ...args], { db }));
    // what a schedule is, beside what it has done and when it runs next
    const kept = (s: Schedule) => ({
      ...s,
      cron: 0,
      timezone: 0,
      everyMs: 0,
      nextDueAt: 0,
      upcoming: 0,
      updatedAt: 0,
    });

    const cron = await update('nightly', '--cron', '0 3 * * *');
    expect(cron).toMatchObject({ cron: '0 3 * * *', timezone: 'Europe/Berlin', enabled: false });
    expect(kept(cron)).toEqual(kept(before));

    const every = await update(
      'nightly',
      '--every',
      '10m',
      '--no-grace',
      '--priority',
      '2',
      '--rename',
      'often',
    );
    expect(every).toMatchObject({
      id: before.id,
      name: 'often',
      cron: null,
      timezone: null,
      everyMs: 600_000,
    });
    expect(every.alarms).toEqual({ graceMs: null, maxRuntimeMs: 3_600_000, minRuntimeMs: null });
    expect(every.task).toEqual({ ...before.task, priority: 2 });
    expect(every.enabled).toBe(false); // pause and resume do that

    const command = await update('often', '--timeout', '5m', '--', 'rsync', '-av', 'src', 'dst');
    expect(command.task).toMatchObject({
      kind: 'shell',
      group: 'backup',
      timeout: 300_000,
      payload: { command: 'rsync', args: ['-av', 'src', 'dst'], cwd: process.cwd() },
    });
    expect((await update('often', '--no-timeout')).task.timeout).toBeNull();

    // the due time stays where the recurrence does: an interval keeps its grid
    await cli(['schedule', 'add', 'grid', '--every', '1h', '--', 'true'], { db });
    const grid = json<Schedule>(await cli(['--json', 'schedule', 'show', 'grid'], { db }));
    expect((await update('grid', '--priority', '4')).nextDueAt).toBe(grid.nextDueAt);
    expect((await update('grid', '--every', '2h')).nextDueAt).not.toBe(grid.nextDueAt);

    const refused: [string[], number, string][] = [
      [['often', '--rename', 'bad name!'], 2, 'semaforo: --rename: must be'],
      [['often', '--tz', 'UTC'], 2, 'semaforo: --tz: goes with --cron only (often runs at an interval)\n'],
      [['often', '--priority', '12'], 2, 'semaforo: --priority: must be an integer from 0 to 9\n'],
      [['often', '--every', 'soon'], 2, 'semaforo: --every: "soon" is not a duration'],
      [['often', '--kind', 'http'], 2, 'semaforo: task.payload.url: must be a string'],
      [['nightly', '--every', '5m'], 1, 'semaforo: schedule "nightly" does not exist\n'],
    ];
    const last = json<Schedule>(await cli(['--json', 'schedule', 'show', 'often'], { db }));
    for (const [args, code, message] of refused) {
      const r = await cli(['schedule', 'update', ...args], { db });
      expect([r.code, r.stderr.startsWith(message)], args.join(' ')).toEqual([code, true]);
    }
    // (a paused schedule's upcoming times are counted from now: if resumed now)
    const after = json<Schedule>(await cli(['--json', 'schedule', 'show', 'often'], { db }));
    expect({ ...after, upcoming: 0 }).toEqual({ ...last, upcoming: 0 });
  });

  it('previews what an expression means without saving anything', async () => {
    const db = freshDb();
    const r = await cli(['schedule', 'preview', '--cron', '0 9 31 * *', '--tz', 'UTC', '--count', '3'], {
      db,
    });
    expect(r.code).toBe(0);
    const months = r.stdout
      .trim()
      .split('\n')
      .map((l) => new Date(l).getUTCDate());
    expect(months).toEqual([31, 31, 31]);
  });
});

describe('an interval schedule across pause and resume', { timeout: 120_000 }, () => {
  it('stays on its grid: the next due time after a resume is the grid point, not now + interval', async () => {
    const db = freshDb();
    type S = { nextDueAt: number | null; upcoming: number[]; everyMs: number };
    const added = json<S>(
      await cli(
        ['--json', 'schedule', 'add', 'grid', '--every', '1h', '--kind', 'sleep', '--payload', '{"ms":0}'],
        {
          db,
        },
      ),
    );
    const paused = json<S>(await cli(['--json', 'schedule', 'pause', 'grid'], { db }));
    expect(paused.nextDueAt).toBeNull();
    expect(paused.upcoming[0]).toBe(added.nextDueAt);
    const resumed = json<S>(await cli(['--json', 'schedule', 'resume', 'grid'], { db }));
    expect(resumed.nextDueAt).toBe(added.nextDueAt);
    expect(resumed.upcoming.slice(0, 2)).toEqual([added.nextDueAt, added.nextDueAt! + 3600_000]);
  });

  it("raises a schedule's alarm in a real worker's log and in schedule list's STATE column", async () => {
    const db = freshDb();
    const add = await cli(
      [
        'schedule',
        'add',
        'dump',
        '--every',
        '1h',
        '--max-runtime',
        '2h',
        '--min-runtime',
        '1h',
        '--',
        'true',
      ],
      { db },
    );
    expect(add.stdout).toContain('alarms:      run at most 2h, run at least 1h');
    const bad = await cli(['schedule', 'add', 'x', '--every', '1h', '--grace', '5s', '--', 'true'], { db });
    expect(bad.stderr).toBe(
      'semaforo: --grace: must be from 10s to 366d (10000 to 31622400000 milliseconds)\n',
    );
    const worker = await startCli(['work'], db, 'dispatching');
    let log = '';
    worker.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    try {
      const id = json<Task>(await cli(['--json', 'schedule', 'run-now', 'dump'], { db })).id;
      await waitFor(() => log.includes('schedule "dump" is too-fast'), 'the alarm in the log');
      expect(log).toMatch(
        new RegExp(`schedule "dump" is too-fast: task ${id} succeeded in \\d+(ms|s), under the 1h expected`),
      );
      const list = await cli(['schedule', 'list'], { db });
      expect(list.stdout).toMatch(/dump .* too-fast/);
      const show = await cli(['schedule', 'show', 'dump'], { db });
      expect(show.stdout).toContain(`health:      too-fast: task ${id} succeeded in`);
    } finally {
      worker.kill('SIGTERM');
      await exited(worker);
    }
  });
});

describe('a damaged schedule', { timeout: 120_000 }, () => {
  it('lists as DAMAGED with its problem beside the others; run-now and resume refuse; update repairs it', async () => {
    const db = freshDb();
    await cli(['schedule', 'add', 'nightly', '--cron', '30 2 * * *', '--', 'echo', 'hi'], { db });
    await cli(['schedule', 'add', 'broken', '--every', '5m', '--', 'echo', 'hi'], { db });
    // a hand edit, as a bad restore or an older version's bug would leave it
    const raw = new Database(db);
    raw.prepare("UPDATE schedules SET template = 'not json' WHERE name = 'broken'").run();
    raw.close();
    const problem = 'the stored task template is damaged: not JSON';

    const list = await cli(['schedule', 'list'], { db });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^broken\s+every 5m\s+-\s+-\s+-\s+DAMAGED$/m);
    expect(list.stdout).toMatch(/^nightly\s+cron 30 2 \* \* \* .*\s+on$/m);
    expect(list.stdout).toContain(
      `\n\nDAMAGED broken: ${problem}\na damaged schedule never runs: repair it with semaforo schedule update NAME --repair`,
    );
    const listed = json<Schedule[]>(await cli(['--json', 'schedule', 'list'], { db }));
    expect(listed.map((s) => [s.name, s.problem])).toEqual([
      ['broken', problem],
      ['nightly', undefined],
    ]);
    expect(listed[0]).toMatchObject({ everyMs: 300_000, nextDueAt: null, upcoming: [] });

    const show = await cli(['schedule', 'show', 'broken'], { db });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(
      /^schedule broken \(DAMAGED\)\n {2}problem: {5}the stored task template is damaged: not JSON\n/,
    );
    expect(show.stdout).toContain('  task:        (cannot be read)\n');

    const refusal = (what: string) =>
      `semaforo: schedule "broken" cannot ${what}: ${problem} (repair it with semaforo schedule update or in the dashboard, or remove it)\n`;
    const runNow = await cli(['schedule', 'run-now', 'broken'], { db });
    expect([runNow.code, runNow.stderr]).toEqual([1, refusal('run')]);
    const resume = await cli(['schedule', 'resume', 'broken'], { db });
    expect([resume.code, resume.stderr]).toEqual([1, refusal('be resumed')]);
    expect(json<unknown[]>(await cli(['--json', 'list'], { db }))).toEqual([]);

    // an update that gives what could not be read repairs it; one that does not says what is missing
    const unasked = await cli(['schedule', 'update', 'broken', '--every', '10m'], { db });
    expect([unasked.code, unasked.stderr]).toEqual([
      2,
      `semaforo: --repair: schedule "broken" is damaged (${problem}); an update writes what cannot be read from the options given or the defaults: check it with schedule show, then add --repair\n`,
    ]);
    const partial = await cli(['schedule', 'update', 'broken', '--repair', '--every', '10m'], { db });
    expect([partial.code, partial.stderr]).toEqual([2, expect.stringMatching(/^semaforo: --kind: /)]);
    const repaired = json<Schedule>(
      await cli(['--json', 'schedule', 'update', 'broken', '--repair', '--', 'echo', 'fixed'], { db }),
    );
    expect(repaired).toMatchObject({
      everyMs: 300_000,
      task: { kind: 'shell', payload: { command: 'echo' } },
    });
    expect(repaired.problem).toBeUndefined();
    expect((await cli(['schedule', 'resume', 'broken'], { db })).code).toBe(0);
    expect((await cli(['schedule', 'list'], { db })).stdout).not.toContain('DAMAGED');

    expect((await cli(['schedule', 'remove', 'broken'], { db })).stdout).toBe('removed broken\n');
    expect((await cli(['schedule', 'list'], { db })).stdout).toContain('nightly');
  });
});
