/**
 * `semaforo adopt` end to end on a file and on a stand-in `crontab` command (a script keeping
 * the crontab in a file, as `crontab -l` / `crontab -` would): dry run, plan, apply, undo.
 * The real cron daemon is test/cli/adopt/adopt-cron.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../../shared/domain.ts';
import { tempDir } from '../../helpers.ts';
import { cli, freshDb, json } from '../cli-helpers.ts';

const CRONTAB = `MAILTO=ops@example.com
# reports
*/5 * * * * curl -fsS https://api.example.com/report > /tmp/report.json
0 2 * * * pg_dump mydb | gzip > /backups/db-$(date +\\%F).sql.gz
30 3 * * 0   rsync -a ~/docs /mnt/backup
0 * * * * echo "100%" done
`;

/** A temp folder holding the crontab file `jobs`, and a fresh queue. */
function setup() {
  const dir = tempDir();
  const file = path.join(dir, 'jobs');
  fs.writeFileSync(file, CRONTAB);
  return { dir, file, db: freshDb() };
}

async function launcherIn(dir: string): Promise<string> {
  expect((await cli(['install-cli', '--dir', dir])).code).toBe(0);
  return path.join(dir, 'semaforo');
}

describe('adopt on a file', () => {
  it('dry-runs without changing anything, applies, and undoes byte for byte', async () => {
    const { dir, file, db } = setup();
    const launcher = await launcherIn(dir);

    const dry = await cli(['adopt', '--file', file, '--launcher', launcher], { db });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      `+*/5 * * * * ${launcher} --db ${db} run -q --group example.com --name curl -- /bin/sh -c`,
    );
    expect(dry.stdout).toMatch(/backups: concurrency 1/);
    expect(dry.stdout).toMatch(/line 6: not understood: an unescaped %/);
    expect(dry.stdout).toMatch(/MAILTO/);
    expect(fs.readFileSync(file, 'utf8')).toBe(CRONTAB);

    const applied = await cli(['adopt', '--file', file, '--launcher', launcher, '--apply'], { db });
    expect(applied.code, applied.stderr).toBe(0);
    // what was done, not the dry run's "nothing changed" above it
    expect(applied.stdout).not.toContain('dry run');
    expect(applied.stdout).toMatch(
      /\napplied; the crontab as it was is kept in \S+; undo: semaforo adopt --undo\n$/,
    );
    const now = fs.readFileSync(file, 'utf8').split('\n');
    // the queue named here (SEMAFORO_DB) is named on each line: cron's environment has none
    expect(now[2]).toContain(`${launcher} --db ${db} run -q --group example.com --name curl --`);
    expect(now[4]).toMatch(/^30 3 \* \* 0 {3}\S+ --db \S+ run -q --group backups --name rsync/);
    expect(now[5]).toBe('0 * * * * echo "100%" done');
    const groups = json<{ name: string; concurrency: number | null }[]>(
      await cli(['--json', 'group', 'list'], { db }),
    );
    expect(groups.find((g) => g.name === 'backups')?.concurrency).toBe(1);
    expect(groups.find((g) => g.name === 'example.com')?.concurrency).toBe(1);

    const undone = await cli(['adopt', '--undo'], { db });
    expect(undone.code, undone.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(CRONTAB);
    expect((await cli(['adopt', '--undo'], { db })).stderr).toMatch(/nothing to undo/);
  });

  it('moves jobs into schedules from an edited plan, and undo removes them', async () => {
    const { dir, file, db } = setup();
    const planFile = path.join(dir, 'plan.json');
    const written = await cli(['adopt', '--file', file, '--into-schedules', '--plan', planFile], { db });
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toContain(`plan written to ${planFile}`);
    const plan = JSON.parse(fs.readFileSync(planFile, 'utf8')) as {
      lines: { line: number; action: string; name: string; group: string; cron?: string }[];
    };
    // A slip in the plan is named by the crontab line it is about, and the field.
    const slip = (edit: (p: typeof plan) => void) => {
      const copy = JSON.parse(JSON.stringify(plan)) as typeof plan;
      edit(copy);
      fs.writeFileSync(planFile, JSON.stringify(copy));
      return cli(['adopt', '--apply', '--plan', planFile], { db });
    };
    const badGroup = await slip((p) => (p.lines.find((l) => l.name === 'curl')!.group = 'no spaces'));
    expect([badGroup.code, badGroup.stderr]).toEqual([
      2,
      'semaforo: crontab line 3 ("*/5 * * * * curl -fsS https://api.examp…") group: ' +
        'must be a group name (letters, digits, . _ : -)\n',
    ]);
    const badCron = await slip((p) => (p.lines.find((l) => l.name === 'pg_dump')!.cron = '61 2 * * *'));
    expect(badCron.code).toBe(2);
    expect(badCron.stderr).toMatch(
      /^semaforo: crontab line 4 \("0 2 \* \* \* pg_dump mydb \| gzip > \/backup…"\) cron: .*invalid minute: 61/,
    );
    // two schedules of one name are refused before anything is created, in one line
    const twins = await slip((p) => {
      for (const l of p.lines) if (l.name === 'curl' || l.name === 'pg_dump') l.name = 'same';
    });
    expect([twins.code, twins.stderr]).toEqual([
      2,
      'semaforo: crontab line 3 ("*/5 * * * * curl -fsS https://api.examp…") and ' +
        'crontab line 4 ("0 2 * * * pg_dump mydb | gzip > /backup…"): both become schedule "same"; ' +
        'give one another name\n',
    ]);
    expect(json<Schedule[]>(await cli(['--json', 'schedule', 'list'], { db }))).toEqual([]);
    expect(fs.readFileSync(file, 'utf8')).toBe(CRONTAB);
    // The user keeps rsync in cron as it is, and renames the dump.
    plan.lines.find((l) => l.name === 'rsync')!.action = 'keep';
    plan.lines.find((l) => l.name === 'pg_dump')!.name = 'nightly-dump';
    fs.writeFileSync(planFile, JSON.stringify(plan));

    const applied = await cli(['adopt', '--apply', '--plan', planFile], { db });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).not.toContain('dry run');
    const schedules = json<Schedule[]>(await cli(['--json', 'schedule', 'list'], { db }));
    expect(schedules.map((s) => [s.name, s.cron]).sort()).toEqual([
      ['curl', '*/5 * * * *'],
      ['nightly-dump', '0 2 * * *'],
    ]);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines[3]).toMatch(/^# moved to a semaforo schedule by `semaforo adopt`: nightly-dump: 0 2/);
    expect(lines[4]).toBe('30 3 * * 0   rsync -a ~/docs /mnt/backup');

    // The plan was for the crontab as it was: applying it again is refused.
    const again = await cli(['adopt', '--apply', '--plan', planFile], { db });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/--plan: the crontab changed since the plan was written/);

    expect((await cli(['adopt', '--undo'], { db })).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(CRONTAB);
    expect(json<Schedule[]>(await cli(['--json', 'schedule', 'list'], { db }))).toEqual([]);
  });

  it('refuses to apply without a launcher, and to undo over later edits unless forced', async () => {
    const { dir, file, db } = setup();
    const none = await cli(['adopt', '--file', file, '--launcher', path.join(dir, 'nope'), '--apply'], {
      db,
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/install-cli/);
    expect(fs.readFileSync(file, 'utf8')).toBe(CRONTAB);

    const launcher = await launcherIn(dir);
    expect((await cli(['adopt', '--file', file, '--launcher', launcher, '--apply'], { db })).code).toBe(0);
    fs.appendFileSync(file, '# my later edit\n');
    const refused = await cli(['adopt', '--undo'], { db });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/edited since/);
    expect((await cli(['adopt', '--undo', '--force'], { db })).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(CRONTAB);
  });
});

describe('adopt on the user crontab', () => {
  it('reads `crontab -l`, installs with `crontab -`, and restores the same bytes', async () => {
    const dir = tempDir();
    const db = freshDb();
    const store = path.join(dir, 'installed');
    fs.writeFileSync(store, CRONTAB);
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    // A stand-in with crontab's interface: -l prints it, - replaces it from stdin.
    fs.writeFileSync(
      path.join(bin, 'crontab'),
      `#!/bin/sh\ncase "$1" in -l) cat '${store}';; -) cat > '${store}';; *) exit 1;; esac\n`,
      { mode: 0o755 },
    );
    const launcher = await launcherIn(dir);
    const env = { PATH: `${bin}:${process.env.PATH}` };
    const applied = await cli(['adopt', '--launcher', launcher, '--apply'], { db, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(fs.readFileSync(store, 'utf8')).toContain(
      `${launcher} --db ${db} run -q --group backups --name pg_dump`,
    );
    expect((await cli(['adopt', '--undo'], { db, env })).code).toBe(0);
    expect(fs.readFileSync(store, 'utf8')).toBe(CRONTAB);
  });

  it('refuses to write a PostgreSQL password into every cron line', async () => {
    const { dir, file } = setup();
    const launcher = await launcherIn(dir);
    const r = await cli([
      '--db',
      'postgres://me:secret@127.0.0.1:1/q',
      'adopt',
      '--file',
      file,
      '--launcher',
      launcher,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--db: the URL holds a password.*~\/\.pgpass/);
    expect(r.stderr).not.toContain('secret');
    expect(fs.readFileSync(file, 'utf8')).toBe(CRONTAB);
  });
});
