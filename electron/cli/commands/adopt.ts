/**
 * `semaforo adopt`: moves an existing crontab behind the queue. A dry run by default (the diff
 * and what would be created); `--plan FILE` writes the plan to edit, `--apply [--plan FILE]`
 * does it (a backup first), `--undo` puts the crontab back byte for byte.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { NotFoundError, ValidationError } from '../../../shared/errors.ts';
import { parseInput, scheduleSpecSchema } from '../../../shared/schemas.ts';
import { localTimeZone } from '../../../shared/schedule-times.ts';
import { parseCrontab } from '../adopt/crontab.ts';
import { hasUserField, installSource, readSource, type Source } from '../adopt/crontab-io.ts';
import { makePlan, parsePlan, sha256, type Plan } from '../adopt/plan.ts';
import { byCrontabLine, checkAgainstCrontab } from '../adopt/plan-lines.ts';
import { latestRecord, recordsDir, retireRecord, saveRecord } from '../adopt/records.ts';
import { diff, rewrite, scheduleSpecs } from '../adopt/rewrite.ts';
import type { CliContext } from '../context.ts';
import { isOurs } from '../install/launcher.ts';

interface AdoptOptions {
  file?: string;
  userField?: boolean;
  intoSchedules?: boolean;
  plan?: string;
  apply?: boolean;
  undo?: boolean;
  force?: boolean;
  launcher: string;
}

const bad = (path: string, message: string) => new ValidationError([{ path, message }]);

/**
 * The queue each wrapped line names, when one was named here (cron runs in $HOME, so a file is
 * made absolute). A password in a URL would stand in every line of the crontab: refused.
 */
function cronDb(named: string | undefined): { db?: string } {
  if (named === undefined) return {};
  if (!/^postgres(ql)?:\/\//i.test(named)) return { db: path.resolve(named) };
  let url: URL;
  try {
    url = new URL(named);
  } catch {
    throw bad('--db', 'is not a valid postgres:// URL');
  }
  if (url.password !== '')
    throw bad(
      '--db',
      'the URL holds a password, which every adopted cron line would show: put it in ~/.pgpass and give the URL without it',
    );
  return { db: named };
}

export function adoptCommand(ctx: CliContext): Command {
  const cmd = new Command('adopt')
    .description(
      'put an existing crontab behind the queue: wrap its lines in `semaforo run`, or move them into schedules',
    )
    .option('--file <path>', 'a crontab file instead of your crontab (/etc/cron.d files have a user field)')
    .option(
      '--user-field',
      'the lines have a user field after the time (automatic for /etc/crontab, /etc/cron.d)',
    )
    .option(
      '--into-schedules',
      'create Semaforo schedules and comment the lines out, instead of wrapping them',
    )
    .option('--plan <file>', 'write the plan to edit (or, with --apply, apply that plan)')
    .option('--apply', 'do it: back up the crontab, create groups and schedules, install the new crontab')
    .option('--undo', 'restore the crontab from before the last --apply and remove the schedules it created')
    .option('--force', 'with --undo: restore even if the crontab was edited since')
    .option(
      '--launcher <path>',
      'the semaforo a wrapped line calls',
      path.join(os.homedir(), '.local', 'bin', 'semaforo'),
    )
    .addHelpText(
      'after',
      `
A dry run by default: prints the crontab's diff and the groups and schedules it would create.
Lines it does not understand are left alone and listed. Backups live in an "adopt" folder next
to the queue file. Install the launcher first: semaforo install-cli`,
    );
  return cmd.action(async (opts: AdoptOptions) => {
    if (opts.undo) return undo(ctx, cmd, opts);
    if (opts.force) throw bad('--force', 'goes with --undo');
    const fromPlan = opts.apply && opts.plan !== undefined ? readPlan(opts.plan) : null;
    const source: Source =
      fromPlan?.source ??
      (opts.file === undefined
        ? { kind: 'crontab' }
        : {
            kind: 'file',
            path: path.resolve(opts.file),
            userField: opts.userField ?? hasUserField(opts.file),
          });
    const bytes = readSource(source);
    const text = bytes.toString('utf8');
    const lines = parseCrontab(text, source.kind === 'file' && source.userField);
    if (fromPlan && fromPlan.sha256 !== sha256(text))
      throw bad('--plan', 'the crontab changed since the plan was written; write a new plan');
    const plan =
      fromPlan ??
      makePlan({
        text,
        lines,
        source,
        launcher: path.resolve(opts.launcher),
        ...cronDb(ctx.globals(cmd).db),
        intoSchedules: opts.intoSchedules === true,
        user: os.userInfo().username,
        localZone: localTimeZone(),
      });
    checkAgainstCrontab(plan.lines, lines);
    const after = rewrite(text, lines, plan);
    const specs = scheduleSpecs(lines, plan, os.homedir());
    const launcherMissing = plan.lines.some((p) => p.action === 'wrap') && !fs.existsSync(plan.launcher);

    if (opts.plan !== undefined && !opts.apply)
      fs.writeFileSync(opts.plan, JSON.stringify(plan, null, 2) + '\n');
    if (!opts.apply) {
      ctx.print(cmd, { plan, diff: diff(text, after), crontab: after, schedules: specs }, () =>
        report(
          plan,
          diff(text, after),
          launcherMissing,
          opts.plan !== undefined
            ? `plan written to ${opts.plan}; edit it, then: semaforo adopt --apply --plan ${opts.plan}`
            : 'dry run: nothing changed (--apply does it, --plan FILE writes a plan to edit)',
        ),
      );
      return;
    }
    if (launcherMissing || (plan.lines.some((p) => p.action === 'wrap') && !isOurs(plan.launcher)))
      throw bad(
        '--launcher',
        `${plan.launcher} is not a semaforo launcher: run \`semaforo install-cli\` first`,
      );
    // Parsed before anything is written: a spec the engine would refuse stops the apply whole.
    const moved = plan.lines.filter((p) => p.action === 'schedule');
    const parsed = specs.map((s, i) => {
      try {
        return parseInput(scheduleSpecSchema, s, `schedules[${i}]`);
      } catch (err) {
        throw err instanceof ValidationError ? byCrontabLine(err, 'schedules', (k) => moved[k] ?? null) : err;
      }
    });
    const engine = await ctx.engine(cmd);
    const stats = await engine.stats(0);
    const createdGroups: string[] = [];
    for (const g of plan.groups) {
      if (stats.groups.some((x) => x.name === g.name && x.concurrency !== null)) continue;
      await engine.updateGroup(g.name, { concurrency: g.concurrency });
      createdGroups.push(g.name);
    }
    const record = saveRecord(recordsDir(ctx.localFolder(cmd)), bytes, {
      source,
      installedSha256: sha256(after),
      schedules: parsed.map((s) => s.name),
      appliedAt: new Date().toISOString(),
    });
    const created: string[] = [];
    try {
      for (const s of parsed) {
        await engine.createSchedule(s);
        created.push(s.name);
      }
      installSource(source, after);
    } catch (err) {
      for (const name of created) await engine.removeSchedule(name);
      fs.rmSync(record);
      throw err;
    }
    ctx.print(cmd, { applied: true, record, groups: createdGroups, schedules: created }, () =>
      report(
        plan,
        diff(text, after),
        false,
        `applied; the crontab as it was is kept in ${path.dirname(record)}; undo: semaforo adopt --undo`,
      ),
    );
  });
}

function readPlan(file: string): Plan {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw bad('--plan', `cannot read ${file}: ${(err as Error).message}`);
  }
  return parsePlan(json);
}

/** The plan in words, then `ending`: what was done with it (a dry run, a plan written, applied). */
function report(plan: Plan, changes: string, launcherMissing: boolean, ending: string): string {
  const out: string[] = [changes ? `Crontab changes:\n${changes}` : 'No crontab line would change.'];
  if (plan.groups.length)
    out.push(
      '',
      'Groups:',
      ...plan.groups.map((g) => `  ${g.name}: concurrency ${g.concurrency} (${g.why})`),
    );
  const moved = plan.lines.filter((p) => p.action === 'schedule');
  if (moved.length)
    out.push(
      '',
      'Schedules:',
      ...moved.map((p) => `  ${p.name}: "${p.cron}" in ${p.timezone}, group ${p.group}`),
    );
  const kept = plan.lines.filter((p) => p.note);
  if (kept.length)
    out.push('', 'Left as they are, or worth knowing:', ...kept.map((p) => `  line ${p.line}: ${p.note}`));
  if (plan.notes.length) out.push('', 'Environment lines:', ...plan.notes.map((n) => `  ${n}`));
  if (launcherMissing)
    out.push('', `${plan.launcher} does not exist yet: run \`semaforo install-cli\` before --apply`);
  out.push('', ending);
  return out.join('\n');
}

async function undo(ctx: CliContext, cmd: Command, opts: AdoptOptions): Promise<void> {
  const last = latestRecord(recordsDir(ctx.localFolder(cmd)));
  if (!last) throw new NotFoundError('nothing to undo: no `semaforo adopt --apply` recorded for this queue');
  const { record, original } = last;
  if (!opts.force && sha256(readSource(record.source).toString('utf8')) !== record.installedSha256)
    throw bad('--undo', 'the crontab was edited since adopt --apply; --force restores the old one anyway');
  installSource(record.source, original);
  const engine = await ctx.engine(cmd);
  const removed: string[] = [];
  for (const name of record.schedules) {
    try {
      await engine.removeSchedule(name);
      removed.push(name);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  retireRecord(last.file);
  ctx.print(cmd, { restored: record.backup, schedulesRemoved: removed }, () =>
    [
      `restored the crontab from before ${record.appliedAt}`,
      removed.length ? `removed schedules: ${removed.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
  );
}
