/** `semaforo schedule …`: recurring schedules that enqueue a task template on cron or interval due times. */
import { Command, Option } from 'commander';
import { ValidationError } from '../../../shared/errors.ts';
import {
  parseInput,
  recurrenceSchema,
  scheduleNameSchema,
  scheduleSpecSchema,
} from '../../../shared/schemas.ts';
import type { CliContext } from '../context.ts';
import { loadKindsFor } from '../kinds.ts';
import { scheduleDetail, scheduleTable } from '../schedule-format.ts';
import { updatedSpec, type UpdateOptions } from '../schedule-update.ts';
import {
  addTaskOptions,
  duration,
  namingOptions,
  TASK_OPTION_NAMES,
  taskSpecFrom,
  wholeNumber,
  type OptionNames,
  type TaskOptions,
  withCallerCwd,
} from '../task-options.ts';

interface RecurrenceOptions {
  cron?: string;
  tz?: string;
  every?: string;
}

function recurrenceFrom(opts: RecurrenceOptions): Record<string, unknown> {
  if ((opts.cron === undefined) === (opts.every === undefined))
    throw new ValidationError([{ path: '--cron', message: 'give either --cron EXPR or --every DUR' }]);
  if (opts.tz !== undefined && opts.cron === undefined)
    throw new ValidationError([{ path: '--tz', message: 'goes with --cron only' }]);
  const r: Record<string, unknown> = {};
  if (opts.cron !== undefined) r.cron = opts.cron;
  if (opts.tz !== undefined) r.timezone = opts.tz;
  if (opts.every !== undefined) r.everyMs = duration('--every', opts.every);
  return r;
}

interface AlarmOptions {
  grace?: string;
  maxRuntime?: string;
  minRuntime?: string;
}

function alarmsFrom(opts: AlarmOptions): Record<string, number | undefined> {
  return {
    graceMs: duration('--grace', opts.grace),
    maxRuntimeMs: duration('--max-runtime', opts.maxRuntime),
    minRuntimeMs: duration('--min-runtime', opts.minRuntime),
  };
}

/** The engine's field names, as the CLI user knows them. */
const SCHEDULE_OPTION_NAMES: OptionNames = {
  cron: '--cron',
  timezone: '--tz',
  everyMs: '--every',
  count: '--count',
  missed: '--missed',
  overlap: '--overlap',
  'alarms.graceMs': '--grace',
  'alarms.maxRuntimeMs': '--max-runtime',
  'alarms.minRuntimeMs': '--min-runtime',
  ...Object.fromEntries(
    Object.entries(TASK_OPTION_NAMES).map(([field, option]) => [`task.${field}`, option]),
  ),
};

/** The engine names an update's fields under `schedule.` (its IPC input's); here they are the options'. */
async function unprefixed<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(err.issues.map((i) => ({ ...i, path: i.path.replace(/^schedule\./, '') })));
  }
}

/** As SCHEDULE_OPTION_NAMES; the new name is --rename's. */
const UPDATE_OPTION_NAMES: OptionNames = { ...SCHEDULE_OPTION_NAMES, name: '--rename' };

const scheduleName = (name: string) => parseInput(scheduleNameSchema, name, 'name');

export function scheduleCommand(ctx: CliContext): Command {
  const root = new Command('schedule').description(
    'recurring schedules: enqueue a task on cron or interval due times (run by the tray app, `work` and `serve`)',
  );

  const add = new Command('add')
    .description('add a schedule')
    .argument('<name>', 'the schedule name (letters, digits, . _ : -)')
    .argument('[command...]', 'after --: a command and its arguments, run as a shell task')
    .option('--cron <expr>', '5-field cron expression: minute hour day month weekday, e.g. "30 2 * * *"')
    .option('--tz <zone>', 'IANA time zone of the cron expression (default: local)')
    .option('--every <dur>', 'an interval instead of cron: 30s, 5m, 2h, 1d')
    .addOption(
      new Option(
        '--missed <policy>',
        'due times missed while nothing ran: skip, once (one catch-up), all (≤100); a due time up to 60s late still runs (a busy or just-woken machine), even with skip',
      )
        .choices(['skip', 'once', 'all'])
        .default('skip'),
    )
    .addOption(
      new Option('--overlap <policy>', 'skip: no new run while the previous one is pending or running')
        .choices(['allow', 'skip'])
        .default('allow'),
    )
    .option('--paused', 'add it paused')
    .option('--grace <dur>', 'alarm when a due run has not started this long after its due time (e.g. 10m)')
    .option('--max-runtime <dur>', 'alarm when a run goes on longer than this (e.g. 1h)')
    .option(
      '--min-runtime <dur>',
      'alarm when a run succeeds faster than this: it probably did nothing (e.g. 5s)',
    );
  addTaskOptions(add, { timing: false }).addHelpText(
    'after',
    `
Examples:
  semaforo schedule add nightly-backup --cron "30 2 * * *" --overlap skip -- rsync -a ~/docs /mnt/backup
  semaforo schedule add poll-vendor --every 5m --group vendor --kind http --payload '{"url":"https://api.example.com/poll"}'
  semaforo schedule add report --cron "0 9 * * 1" --tz Europe/Berlin --missed once -- ./report.sh
  semaforo schedule add db-dump --cron "0 3 * * *" --grace 15m --max-runtime 1h --min-runtime 10s -- pg_dump -f /backup/db.sql app

Alarms (--grace, --max-runtime, --min-runtime) show in \`schedule list\`'s STATE column, in the
log of \`semaforo work\` and \`serve\`, and as notifications in the tray app.`,
  );
  add.action(
    async (
      name: string,
      command: string[],
      opts: TaskOptions &
        RecurrenceOptions &
        AlarmOptions & { missed: string; overlap: string; paused?: boolean },
    ) => {
      // As with enqueue: `-- ./report.sh` means this folder's script, not the worker's folder's.
      const task = withCallerCwd(taskSpecFrom(opts, command)) as Record<string, unknown>;
      // Its tasks are named after the schedule unless --name says otherwise.
      if (opts.name === undefined) delete task.name;
      const spec = {
        name,
        ...recurrenceFrom(opts),
        task,
        missed: opts.missed,
        overlap: opts.overlap,
        enabled: !opts.paused,
        alarms: alarmsFrom(opts),
      };
      const { handlers } = await loadKindsFor(ctx, add, [task.kind]);
      const engine = await ctx.engine(add, { userHandlers: handlers });
      const s = await namingOptions(SCHEDULE_OPTION_NAMES, () =>
        engine.createSchedule(parseInput(scheduleSpecSchema, spec)),
      );
      ctx.print(add, s, () => scheduleDetail(s, Date.now()));
    },
  );

  const update = new Command('update')
    .description('change a schedule: only what the options name changes (it also repairs a damaged one)')
    .argument('<name>', 'the schedule to change')
    .argument('[command...]', 'after --: a new command and its arguments (a shell task)')
    .option('--rename <name>', 'give the schedule a new name')
    .option('--cron <expr>', 'a new cron expression (keeps its time zone unless --tz says another)')
    .option('--tz <zone>', 'IANA time zone of the cron expression')
    .option('--every <dur>', 'an interval instead: 30s, 5m, 2h, 1d')
    .addOption(
      new Option('--missed <policy>', 'due times missed while nothing ran').choices(['skip', 'once', 'all']),
    )
    .addOption(
      new Option(
        '--overlap <policy>',
        'skip: no new run while the previous one is pending or running',
      ).choices(['allow', 'skip']),
    )
    .option('--grace <dur>', 'alarm when a due run has not started this long after its due time')
    .option('--no-grace', 'drop that alarm')
    .option('--max-runtime <dur>', 'alarm when a run goes on longer than this')
    .option('--no-max-runtime', 'drop that alarm')
    .option('--min-runtime <dur>', 'alarm when a run succeeds faster than this')
    .option('--no-min-runtime', 'drop that alarm')
    .option('--repair', 'a damaged schedule: write what cannot be read from the options or the defaults');
  addTaskOptions(update, { timing: false })
    .option('--no-timeout', 'drop the timeout')
    .option('--no-uses', 'hold no resources')
    .addHelpText(
      'after',
      `
Whatever is not named stays as it is; paused stays paused (pause and resume do that), and the next
due time stays unless the recurrence changes (then it counts from now). --payload replaces the
payload; a command after -- replaces a shell task's command and arguments and keeps the rest of its
payload. A damaged schedule needs --repair: what cannot be read is written from the options or the
defaults (a task template that cannot be read at all is made again from the options, as add makes
it); a damaged schedule the scheduler paused stays paused until resume.

Examples:
  semaforo schedule update nightly-backup --cron "0 3 * * *"
  semaforo schedule update poll-vendor --every 10m --group vendor-slow --no-grace
  semaforo schedule update report --rename weekly-report -- ./report.sh --weekly`,
    );
  update.action(async (name: string, command: string[], opts: UpdateOptions & { repair?: boolean }) => {
    const engine = await ctx.engine(update);
    const old = await engine.getSchedule(scheduleName(name));
    // What could not be read is written as the options or the defaults say: not without a yes.
    if (old.problem !== undefined && !opts.repair)
      throw new ValidationError([
        {
          path: '--repair',
          message:
            `schedule "${old.name}" is damaged (${old.problem}); an update writes what cannot be read ` +
            'from the options given or the defaults: check it with schedule show, then add --repair',
        },
      ]);
    const given = (o: string) => update.getOptionValueSource(o) === 'cli';
    const spec = await namingOptions(UPDATE_OPTION_NAMES, () =>
      parseInput(scheduleSpecSchema, updatedSpec(old, opts, given, command)),
    );
    // A kind of the user's own needs its handler loaded to be accepted, as with add.
    const { handlers } = await loadKindsFor(ctx, update, [spec.task.kind]);
    let withKinds = engine;
    if (handlers.length > 0) {
      await ctx.discard(engine);
      withKinds = await ctx.engine(update, { userHandlers: handlers });
    }
    const s = await namingOptions(UPDATE_OPTION_NAMES, () =>
      unprefixed(() => withKinds.updateSchedule(old.name, spec)),
    );
    ctx.print(update, s, () => scheduleDetail(s, Date.now()));
  });

  const list = new Command('list').description('list the schedules with their next and last runs');
  list.action(async () => {
    const all = await (await ctx.engine(list)).listSchedules();
    ctx.print(list, all, () => scheduleTable(all, Date.now()));
  });

  const show = new Command('show')
    .description('one schedule in full, with its next five due times')
    .argument('<name>');
  show.action(async (name: string) => {
    const s = await (await ctx.engine(show)).getSchedule(scheduleName(name));
    ctx.print(show, s, () => scheduleDetail(s, Date.now()));
  });

  const simple = (verb: 'pause' | 'resume', what: string) => {
    const c = new Command(verb).description(what).argument('<name>');
    return c.action(async (name: string) => {
      const e = await ctx.engine(c);
      const n = scheduleName(name);
      const s = verb === 'pause' ? await e.pauseSchedule(n) : await e.resumeSchedule(n);
      ctx.print(c, s, () =>
        s.enabled
          ? `resumed ${s.name}; next due ${s.nextDueAt === null ? 'never' : new Date(s.nextDueAt).toISOString()}`
          : `paused ${s.name}`,
      );
    });
  };

  const remove = new Command('remove')
    .alias('rm')
    .description('delete a schedule (tasks it already enqueued stay)')
    .argument('<name>');
  remove.action(async (name: string) => {
    await (await ctx.engine(remove)).removeSchedule(scheduleName(name));
    ctx.print(remove, { name }, () => `removed ${name}`);
  });

  const runNow = new Command('run-now')
    .description("enqueue one run of the schedule's task now (its due times stay as they are)")
    .argument('<name>');
  runNow.action(async (name: string) => {
    const r = await (await ctx.engine(runNow)).runScheduleNow(scheduleName(name));
    ctx.print(runNow, r.task, () => `${r.task.id}`);
  });

  const preview = new Command('preview')
    .description('print the next due times of a cron expression or interval, without saving anything')
    .option('--cron <expr>', '5-field cron expression')
    .option('--tz <zone>', 'IANA time zone (default: local)')
    .option('--every <dur>', 'an interval: 30s, 5m, 2h')
    .option('--count <n>', 'how many due times (1-50)', '5');
  preview.action(async (opts: RecurrenceOptions & { count: string }) => {
    const input = { ...recurrenceFrom(opts), count: wholeNumber('--count', opts.count) };
    const engine = await ctx.engine(preview);
    const out = await namingOptions(SCHEDULE_OPTION_NAMES, () =>
      engine.previewSchedule(parseInput(recurrenceSchema, input)),
    );
    ctx.print(preview, out, () =>
      out.times.length ? out.times.map((t) => new Date(t).toISOString()).join('\n') : 'never comes due',
    );
  });

  return root
    .addCommand(add)
    .addCommand(update)
    .addCommand(list)
    .addCommand(show)
    .addCommand(simple('pause', 'stop a schedule from firing (nothing is caught up on resume)'))
    .addCommand(simple('resume', 'start firing again from the next due time'))
    .addCommand(remove)
    .addCommand(runNow)
    .addCommand(preview);
}
