import { describe, expect, it } from 'vitest';
import type { GroupInfo, Task, TaskWithHistory } from '../../shared/domain.ts';
import { cli, freshDb, json, startCli } from './cli-helpers.ts';

const sleep0 = ['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}'];

// Each test spawns a dozen or more CLIs, seconds each on a loaded machine.
describe('semaforo CLI, driven as a separate process', { timeout: 120_000 }, () => {
  it('shows help for the program and for every command', async () => {
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    for (const c of ['enqueue', 'run', 'work', 'list', 'show', 'stats', 'retry', 'cancel', 'group'])
      expect(top.stdout).toContain(c);
    const sub = await cli(['group', 'set', '--help']);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toMatch(/--rate <N\/PERIOD>/);
  });

  it('enqueues a task, prints its id, and the task reads back with the documented JSON shape', async () => {
    const db = freshDb();
    const r = await cli(
      ['enqueue', '--group', 'reports', '--priority', '2', '--timeout', '5m', '--', 'echo', 'hi'],
      { db },
    );
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('1');
    const t = json<TaskWithHistory>(await cli(['--json', 'show', '1'], { db }));
    expect(t).toMatchObject({
      id: 1,
      kind: 'shell',
      name: 'echo hi',
      group: 'reports',
      priority: 2,
      status: 'pending',
      attempts: 0,
      maxAttempts: 3,
      timeout: 300_000,
      payload: { command: 'echo', args: ['hi'] },
      result: null,
      error: null,
      startedAt: null,
      finishedAt: null,
      history: [],
    });
    expect(typeof t.runAt).toBe('number');
  });

  it.each([
    [
      ['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--priority', '12'],
      /priority: must be an integer from 0 to 9/,
    ],
    [['enqueue', '--kind', 'sleep', '--payload', '{ms:0}'], /--payload: is not valid JSON/],
    [['enqueue', '--kind', 'nope'], /kind: unknown kind "nope"/],
    [
      ['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--delay', 'soon'],
      /--delay: "soon" is not a duration/,
    ],
    [
      ['enqueue', '--kind', 'sleep', '--payload', '{"ms":0}', '--at', 'tomorrow'],
      /--at: "tomorrow" is not an ISO 8601 time/,
    ],
    [['enqueue'], /--kind: give --kind KIND, or a command after --/],
    [['list', '--status', 'stuck'], /--status: "stuck" is not a status/],
    [['group', 'set', 'vendor', '--rate', '5 per second'], /--rate: "5 per second" is not a rate/],
    [['retry'], /give task ids, or --failed/],
    [['enqueue', '--bogus'], /unknown option '--bogus'/],
  ])(
    'refuses %j with exit 2, one line on stderr naming the problem, and writes nothing',
    async (args, message) => {
      const db = freshDb();
      const r = await cli(args, { db });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')[0]).toMatch(message);
      expect(json<Task[]>(await cli(['--json', 'list'], { db }))).toEqual([]);
    },
  );

  it('--stdin enqueues newline-delimited specs in one transaction, or none of them', async () => {
    const db = freshDb();
    const good = [
      JSON.stringify({ kind: 'sleep', name: 'a', payload: { ms: 0 } }),
      '',
      JSON.stringify({ kind: 'sleep', name: 'b', group: 'g', delay: '1m', payload: { ms: 0 } }),
      JSON.stringify({ kind: 'sleep', name: 'c', runAt: '2030-01-01T00:00:00Z', payload: { ms: 0 } }),
    ].join('\n');
    const r = await cli(['--json', 'enqueue', '--stdin'], { db, stdin: good });
    const tasks = json<Task[]>(r);
    expect(tasks.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(tasks[2]!.runAt).toBe(Date.parse('2030-01-01T00:00:00Z'));

    const bad = [
      JSON.stringify({ kind: 'sleep', payload: { ms: 0 } }),
      '{"kind": "sleep", "priority": -1, "payload": {"ms":0}}',
    ].join('\n');
    const r2 = await cli(['enqueue', '--stdin'], { db, stdin: bad });
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/line 2: priority/);
    const r3 = await cli(['enqueue', '--stdin'], { db, stdin: '{"kind":"sleep",\n' });
    expect(r3.code).toBe(2);
    expect(r3.stderr).toMatch(/line 1: is not JSON/);
    expect(json<Task[]>(await cli(['--json', 'list'], { db }))).toHaveLength(3);
  });

  it('names a shell task by its command line, from --stdin as from the words after --', async () => {
    const db = freshDb();
    const specs = [
      { kind: 'shell', payload: { command: 'rsync', args: ['-a', 'src/', 'dst/'] } },
      { kind: 'shell', payload: { command: 'du -sh * | sort -h', shell: true } },
      { kind: 'sleep', payload: { ms: 0 } },
    ];
    const stdin = specs.map((s) => JSON.stringify(s)).join('\n');
    const tasks = json<Task[]>(await cli(['--json', 'enqueue', '--stdin'], { db, stdin }));
    expect(tasks.map((t) => t.name)).toEqual(['rsync -a src/ dst/', 'du -sh * | sort -h', 'sleep']);
  });

  it('keeps credentials out of a default name, but not out of the command or a name given', async () => {
    const db = freshDb();
    const command = [
      'curl',
      '-H',
      'Authorization: Bearer abc',
      'https://user:pw@api.example.com/x?token=abc',
    ];
    const t = json<Task>(await cli(['--json', 'enqueue', '--', ...command], { db }));
    expect(t.name).toBe('curl -H Authorization: *** https://user:***@api.example.com/x?token=***');
    expect((await cli(['show', String(t.id)], { db })).stdout).toMatch(
      /^ {2}name +curl -H Authorization: \*\*\* /m,
    );
    expect((await cli(['list'], { db })).stdout).not.toMatch(/abc|pw@/);
    // what runs is the command as typed
    expect(t.payload).toMatchObject({ command: 'curl', args: command.slice(1) });
    const named = json<Task>(
      await cli(['--json', 'enqueue', '--name', 'token abc', '--', ...command], { db }),
    );
    expect(named.name).toBe('token abc');
  });

  it('lists with filters, shows one task, and reports a missing one with exit 1', async () => {
    const db = freshDb();
    await cli([...sleep0, '--group', 'a', '--name', 'first'], { db });
    await cli([...sleep0, '--group', 'b', '--name', 'second'], { db });
    const inB = json<Task[]>(await cli(['--json', 'list', '--group', 'b'], { db }));
    expect(inB.map((t) => t.name)).toEqual(['second']);
    const human = await cli(['list'], { db });
    expect(human.stdout).toMatch(/ID\s+STATUS\s+KIND/);
    expect(human.stdout).toMatch(/○ pending\s+sleep\s+a/);
    const missing = await cli(['show', '99'], { db });
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('semaforo: task 99 does not exist');
  });

  it('stats --json has counts per status, groups and recent failures', async () => {
    const db = freshDb();
    await cli(sleep0, { db });
    const s = json<{ counts: Record<string, number>; groups: GroupInfo[]; recentFailures: Task[] }>(
      await cli(['--json', 'stats'], { db }),
    );
    expect(s.counts).toEqual({ pending: 1, running: 0, retrying: 0, done: 0, failed: 0, cancelled: 0 });
    expect(s.groups.map((g) => g.name)).toEqual(['default']);
    expect(s.recentFailures).toEqual([]);
  });

  it('operator commands: group limits, pause/resume, cancel, retry, delete, settings, purge', async () => {
    const db = freshDb();
    const g = json<GroupInfo>(
      await cli(['--json', 'group', 'set', 'vendor', '--concurrency', '1', '--rate', '10/min'], { db }),
    );
    expect(g).toMatchObject({ name: 'vendor', concurrency: 1, rate: { limit: 10, periodMs: 60_000 } });
    const cleared = json<GroupInfo>(
      await cli(['--json', 'group', 'set', 'vendor', '--rate', 'none'], { db }),
    );
    expect(cleared.rate).toBeNull();
    expect((await cli(['group', 'list'], { db })).stdout).toMatch(/vendor\s+1\s+none\s+open/);

    expect((await cli(['pause', 'vendor'], { db })).stdout.trim()).toBe('group vendor paused');
    expect(json<GroupInfo[]>(await cli(['--json', 'group', 'list'], { db }))[0]!.paused).toBe(true);
    await cli(['resume', 'vendor'], { db });
    await cli(['pause'], { db });
    expect(json<{ paused: boolean }>(await cli(['--json', 'settings'], { db })).paused).toBe(true);
    await cli(['resume'], { db });

    await cli(sleep0, { db });
    await cli(sleep0, { db });
    expect(
      json<{ cancelled: number[] }>(await cli(['--json', 'cancel', '1', '2'], { db })).cancelled,
    ).toEqual([1, 2]);
    expect(json<{ ids: number[] }>(await cli(['--json', 'retry', '1'], { db })).ids).toEqual([1]);
    expect(json<{ ids: number[] }>(await cli(['--json', 'delete', '2'], { db })).ids).toEqual([2]);
    expect(json<Task[]>(await cli(['--json', 'list'], { db })).map((t) => [t.id, t.status])).toEqual([
      [1, 'pending'],
    ]);

    const s = json<{ globalConcurrency: number; retentionDays: number }>(
      await cli(['--json', 'settings', '--concurrency', '5', '--retention', '7d'], { db }),
    );
    expect(s).toMatchObject({ globalConcurrency: 5, retentionDays: 7 });
    const n = json<{ notifications: { groups: string[] } }>(
      await cli(['--json', 'settings', '--notify-groups', 'b, a,b,a'], { db }),
    );
    expect(n.notifications.groups).toEqual(['b', 'a']); // each once, as the dashboard saves them
    expect(json<{ count: number }>(await cli(['--json', 'purge', '--older-than', '1d'], { db })).count).toBe(
      0,
    );
  });

  it("shows a group's rate as people write it, in a form --rate takes back", async () => {
    const db = freshDb();
    expect((await cli(['group', 'set', 'vendor', '--rate', '10/min'], { db })).stdout.trim()).toBe(
      'group vendor: concurrency none, rate 10/min',
    );
    expect((await cli(['group', 'list'], { db })).stdout).toMatch(/^vendor +- +10\/min \(0 used\) +open/m);
    expect((await cli(['group', 'show', 'vendor'], { db })).stdout).toMatch(
      /^ {2}rate +10\/min, one start every 6s$/m,
    );
    expect((await cli(['stats'], { db })).stdout).toContain('10/min (0 used)');
    // A day's period is shown as "5/d", and that, typed back, is the same rate.
    const daily = await cli(['group', 'set', 'reports', '--rate', '5/1d'], { db });
    const shown = /rate (\S+)$/.exec(daily.stdout.trim())![1]!;
    expect(shown).toBe('5/d');
    const again = json<GroupInfo>(await cli(['--json', 'group', 'set', 'reports', '--rate', shown], { db }));
    expect(again.rate).toEqual({ limit: 5, periodMs: 86_400_000 });
    // A period past the longest is named, with the longest, rather than a count of milliseconds.
    const long = await cli(['group', 'set', 'reports', '--rate', '5/2days'], { db });
    expect([long.code, long.stderr]).toEqual([
      2,
      'semaforo: --rate: the period "2days" is longer than 1d, the longest a rate has\n',
    ]);
  });

  it('work --drain runs everything and exits 0, or 1 when a task failed during the run', async () => {
    const db = freshDb();
    for (let i = 0; i < 5; i++) await cli(sleep0, { db });
    const ok = await cli(['work', '--drain'], { db });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(/drained/);
    expect(json<{ counts: Record<string, number> }>(await cli(['--json', 'stats'], { db })).counts.done).toBe(
      5,
    );

    await cli(['enqueue', '--max-attempts', '1', '--', process.execPath, '-e', 'process.exit(3)'], { db });
    const failed = await cli(['work', '--drain'], { db });
    expect(failed.code).toBe(1);
    const t = json<Task[]>(await cli(['--json', 'list', '--status', 'failed'], { db }))[0]!;
    expect(t.error).toMatch(/exited with code 3/);
  });

  it('work --drain stopped by SIGTERM before the queue is empty says so and exits 143, the tasks still queued', async () => {
    const db = freshDb();
    await cli(['enqueue', '--kind', 'sleep', '--payload', '{"ms":600000}'], { db });
    await cli(sleep0, { db });
    const worker = await startCli(
      ['work', '--drain', '--concurrency', '1', '--grace', '10ms'],
      db,
      'dispatching from',
    );
    let stderr = '';
    worker.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(stderr).toMatch(
      /stopped by SIGTERM before the queue was drained: [12] task\(s\) left; they stay queued/,
    );
    expect(stderr).not.toMatch(/work: drained/);
    const counts = json<{ counts: Record<string, number> }>(await cli(['--json', 'stats'], { db })).counts;
    expect((counts.pending ?? 0) + (counts.done ?? 0)).toBe(2);
  });

  it('kinds lists the built-in kinds', async () => {
    const r = json<{ kinds: { kind: string; source: string }[] }>(await cli(['--json', 'kinds']));
    expect(r.kinds.map((k) => k.kind)).toEqual(
      expect.arrayContaining(['http', 'shell', 'sleep', 'sqlite-backup']),
    );
  });
});
