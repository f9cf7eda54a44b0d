/** The pure parts of `semaforo adopt`: reading a crontab, guessing groups, planning, rewriting. */
import { describe, expect, it } from 'vitest';
import { parseCrontab, parseLine } from '../../../electron/cli/adopt/crontab.ts';
import { commandWords, guessGroup, jobName, vendorGroup } from '../../../electron/cli/adopt/groups.ts';
import { makePlan, parsePlan, type Plan } from '../../../electron/cli/adopt/plan.ts';
import { checkAgainstCrontab, crontabLine } from '../../../electron/cli/adopt/plan-lines.ts';
import {
  diff,
  MOVED_MARK,
  rewrite,
  scheduleSpecs,
  wrappedCommand,
} from '../../../electron/cli/adopt/rewrite.ts';

const CRONTAB = `# my jobs
MAILTO=me@example.com
CRON_TZ=Europe/Berlin
*/5 * * * *   curl -fsS https://api.example.com/report > /tmp/report.json
0 2 * * * pg_dump mydb | gzip > /backups/db-$(date +\\%F).sql.gz
@reboot /usr/local/bin/start-thing
15 4 * * * wget -q https://api.example.com/x -O /tmp/x
0 * * * * echo "100%" done
61 * * * * broken
* * * * * /home/u/bin/poll.sh --fast
`;

function plan(text: string, intoSchedules: boolean): Plan {
  return makePlan({
    text,
    lines: parseCrontab(text),
    source: { kind: 'crontab' },
    launcher: '/home/u/.local/bin/semaforo',
    intoSchedules,
    user: 'u',
    localZone: 'UTC',
  });
}

describe('reading a crontab', () => {
  it('tells jobs, environment lines, comments and lines cron would not run apart, keeping their text', () => {
    const lines = parseCrontab(CRONTAB);
    expect(lines.map((l) => l.type)).toEqual([
      'comment',
      'env',
      'env',
      'job',
      'job',
      'job',
      'job',
      'unknown',
      'unknown',
      'job',
    ]);
    expect(lines.map((l) => l.text).join('\n') + '\n').toBe(CRONTAB);
    expect(lines[3]).toMatchObject({ timing: '*/5 * * * *', head: '*/5 * * * *   ', user: null });
    // cron reads `\%` as `%` before the shell sees it.
    expect(lines[4]).toMatchObject({ command: 'pg_dump mydb | gzip > /backups/db-$(date +%F).sql.gz' });
    expect(lines[7]).toMatchObject({ why: expect.stringMatching(/unescaped %/) });
    expect(lines[8]).toMatchObject({ why: expect.stringMatching(/time fields/) });
  });

  it('reads the user field of /etc/cron.d lines, names and ranges, and refuses what cron refuses', () => {
    expect(parseLine('17 * * * mon-fri root  run-parts /etc/cron.hourly', true)).toMatchObject({
      type: 'job',
      user: 'root',
      command: 'run-parts /etc/cron.hourly',
    });
    expect(parseLine('0 0 1 jan,jul * /x', false)).toMatchObject({ type: 'job', timing: '0 0 1 jan,jul *' });
    expect(parseLine('@weekly /x', false)).toMatchObject({ type: 'job', timing: '@weekly' });
    expect(parseLine('@fortnightly /x', false)).toMatchObject({ type: 'unknown' });
    expect(parseLine('0 24 * * * /x', false)).toMatchObject({ type: 'unknown' });
    expect(parseLine('0 0 * * *', false)).toMatchObject({ type: 'unknown' });
    expect(parseLine('PATH = /usr/local/bin:/usr/bin', false)).toMatchObject({ type: 'env', name: 'PATH' });
    expect(parseLine('FOO="a b"', false)).toMatchObject({ type: 'env', value: 'a b' });
  });
});

describe('guessing groups', () => {
  it('puts calls to one host in one vendor group and backup tools in backups', () => {
    expect(vendorGroup('api.example.com')).toBe('example.com');
    expect(guessGroup('curl -fsS https://api.example.com/a')).toMatchObject({
      group: 'example.com',
      concurrency: 1,
    });
    expect(guessGroup('sleep 5 && wget http://cdn.example.com/b')!.group).toBe('example.com');
    for (const c of [
      'pg_dump db > x',
      'nice -n 10 mysqldump db',
      'sudo -u pg restic backup /srv',
      'borg create ::x /home',
      'tar czf /b/x.tgz /etc',
      "sqlite3 app.db '.backup /b/app.db'",
      '/usr/bin/rsync -a a b',
    ])
      expect(guessGroup(c), c).toMatchObject({ group: 'backups', concurrency: 1 });
    expect(guessGroup('sqlite3 app.db "select 1"')).toBeNull();
    expect(guessGroup('/home/u/bin/poll.sh')).toBeNull();
    expect(commandWords('FOO=1 timeout 30 flock -n /tmp/l ./a.sh | tee log')).toEqual(['a.sh', 'tee']);
  });

  it('names jobs after their first tool, uniquely', () => {
    const taken = new Set<string>();
    expect([
      jobName('/home/u/bin/poll.sh', taken),
      jobName('poll.sh -x', taken),
      jobName('$(x)', taken),
    ]).toEqual(['poll', 'poll-2', 'job']);
  });
});

describe('planning and rewriting', () => {
  it('wraps each job in semaforo run, keeping timing, spacing and every other line byte for byte', () => {
    const p = plan(CRONTAB, false);
    const after = rewrite(CRONTAB, parseCrontab(CRONTAB), p);
    const a = CRONTAB.split('\n');
    const b = after.split('\n');
    expect(b.length).toBe(a.length);
    expect(b[3]).toBe(
      "*/5 * * * *   /home/u/.local/bin/semaforo run -q --group example.com --name curl -- /bin/sh -c 'curl -fsS https://api.example.com/report > /tmp/report.json'",
    );
    // `%` is escaped again for cron inside the quoted command.
    expect(b[4]).toContain("-- /bin/sh -c 'pg_dump mydb | gzip > /backups/db-$(date +\\%F).sql.gz'");
    expect(b[9]).toBe(
      '* * * * * /home/u/.local/bin/semaforo run -q --group default --name poll -- /home/u/bin/poll.sh --fast',
    );
    for (const i of [0, 1, 2, 7, 8]) expect(b[i]).toBe(a[i]);
    expect(p.groups.map((g) => g.name)).toEqual(['example.com', 'backups']);
    expect(p.lines.filter((l) => l.note).map((l) => l.line)).toEqual([8, 9]);
    expect(p.notes.join('\n')).toMatch(/MAILTO.*notifications/);
    expect(
      diff(CRONTAB, after)
        .split('\n')
        .filter((l) => l.startsWith('-')).length,
    ).toBe(5);
  });

  it('quotes a command with shell syntax whole, so `&&` and redirections stay inside the run', () => {
    expect(wrappedCommand('a && b > log', '/bin/sh')).toBe("/bin/sh -c 'a && b > log'");
    expect(wrappedCommand("echo 'it''s'", '/bin/bash')).toBe(`/bin/bash -c 'echo '\\''it'\\'''\\''s'\\'''`);
    expect(wrappedCommand('/usr/bin/backup --all', '/bin/sh')).toBe('/usr/bin/backup --all');
  });

  it('moves jobs into schedules in their CRON_TZ, comments them out, and keeps @reboot in cron', () => {
    const p = plan(CRONTAB, true);
    const lines = parseCrontab(CRONTAB);
    const after = rewrite(CRONTAB, lines, p).split('\n');
    expect(after[3]).toBe(`${MOVED_MARK} curl: ${CRONTAB.split('\n')[3]}`);
    expect(after[5]).toContain('semaforo run'); // @reboot: wrapped instead
    const specs = scheduleSpecs(lines, p, '/home/u');
    expect(specs.map((s) => s.name)).toEqual(['curl', 'pg_dump', 'wget', 'poll']);
    expect(specs[0]).toEqual({
      name: 'curl',
      cron: '*/5 * * * *',
      timezone: 'Europe/Berlin',
      task: {
        kind: 'shell',
        group: 'example.com',
        payload: {
          command: '/bin/sh',
          args: ['-c', 'curl -fsS https://api.example.com/report > /tmp/report.json'],
          cwd: '/home/u',
          env: { PATH: '/usr/bin:/bin' },
        },
      },
    });
  });

  it('reads an edited plan back, naming the crontab line and the field it cannot use', () => {
    const p = plan(CRONTAB, false);
    const edited = JSON.parse(JSON.stringify(p)) as Plan;
    edited.lines[0]!.group = 'vendor';
    expect(parsePlan(edited).lines[0]!.group).toBe('vendor');
    edited.lines[0]!.group = 'no spaces';
    expect(() => parsePlan(edited)).toThrow(
      'crontab line 4 ("*/5 * * * *   curl -fsS https://api.exa…") group: must be a group name',
    );
    expect(() => parsePlan({ ...p, version: 2 })).toThrow(/^plan\.version: /);
    const moved = JSON.parse(JSON.stringify(plan(CRONTAB, true))) as Plan;
    delete moved.lines.find((l) => l.line === 5)!.cron;
    expect(() => parsePlan(moved)).toThrow(
      'crontab line 5 ("0 2 * * * pg_dump mydb | gzip > /backup…"): a schedule needs "cron"',
    );
    // An entry that no longer says which line it is can only be named by its place in the file.
    const lost = JSON.parse(JSON.stringify(p)) as { lines: { line: unknown }[] };
    lost.lines[1]!.line = 'five';
    expect(() => parsePlan(lost)).toThrow(/^plan\.lines\[1\]\.line: /);
  });

  it('quotes a crontab line in one line, cut between characters', () => {
    const emoji = crontabLine({ line: 2, text: `0 * * * * echo ${'😀'.repeat(40)}` });
    expect(emoji).toBe(`crontab line 2 ("0 * * * * echo ${'😀'.repeat(24)}…")`);
    expect(emoji).not.toMatch(/\p{Cs}/u);
    expect(crontabLine({ line: 3, text: '0 * * * * a\nb\r\nc' })).toBe(
      'crontab line 3 ("0 * * * * a\\nb\\nc")',
    );
  });

  it('refuses a plan with two entries for one line, two schedules of one name, or a job that is not one', () => {
    const moved = JSON.parse(JSON.stringify(plan(CRONTAB, true))) as Plan;
    const twice = JSON.parse(JSON.stringify(moved)) as Plan;
    twice.lines.push({ ...twice.lines.find((l) => l.line === 5)!, name: 'other' });
    expect(() => parsePlan(twice)).toThrow(
      /^crontab line 5 \("0 2 \* \* \* pg_dump mydb \| gzip > \/backup…"\): is in the plan twice; keep one entry for it$/,
    );
    const same = JSON.parse(JSON.stringify(moved)) as Plan;
    for (const l of same.lines) if (l.line === 4 || l.line === 5) l.name = 'same';
    expect(() => parsePlan(same)).toThrow(
      'crontab line 4 ("*/5 * * * *   curl -fsS https://api.exa…") and ' +
        'crontab line 5 ("0 2 * * * pg_dump mydb | gzip > /backup…"): both become schedule "same"; give one another name',
    );
    // a schedule entry pointed at the comment on line 1
    const comment = JSON.parse(JSON.stringify(moved)) as Plan;
    Object.assign(
      comment.lines.find((l) => l.line === 5)!,
      { line: 1, text: '# my jobs' },
    );
    expect(() => checkAgainstCrontab(parsePlan(comment).lines, parseCrontab(CRONTAB))).toThrow(
      /^crontab line 1 \("# my jobs"\): is not a cron job: only a job can be moved into a schedule$/,
    );
    expect(() => checkAgainstCrontab(moved.lines, parseCrontab(CRONTAB))).not.toThrow();
  });
});
