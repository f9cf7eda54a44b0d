/** `semaforo schedule …`: recurring schedules that enqueue a task template on cron or interval due times. */
import { Command, Option } from 'commander';
import type { Schedule } from '../../../shared/domain.ts';
import { formatDuration } from '../../../shared/durations.ts';
import { ValidationError } from '../../../shared/errors.ts';
import { localTimeZone } from '../../../shared/schedule-times.ts';
import {
  parseInput,
  recurrenceSchema,
  scheduleNameSchema,
  scheduleSpecSchema,
} from '../../../shared/schemas.ts';
import type { CliContext } from '../context.ts';
import { relativeTime, table } from '../format.ts';
import { loadKindsFor } from '../kinds.ts';
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

/** on / paused, or the alarm that holds (late 12m, overrun, failed...); DAMAGED above all. */
function stateText(s: Schedule, now: number): string {
  if (s.problem !== undefined) return 'DAMAGED';
  const h = s.health;
  if (h.state === 'ok') return s.enabled ? 'on' : 'paused';
  return h.since === null ? h.state : `${h.state} ${relativeTime(h.since, now).replace(/ ago$/, '')}`;
}

function alarmsText(s: Schedule): string {
  const a = s.alarms;
  const parts = [
    a.graceMs === null ? null : `start within ${formatDuration(a.graceMs)} of due`,
    a.maxRuntimeMs === null ? null : `run at most ${formatDuration(a.maxRuntimeMs)}`,
    a.minRuntimeMs === null ? null : `run at least ${formatDuration(a.minRuntimeMs)}`,
  ].filter((x) => x !== null);
  return parts.length ? parts.join(', ') : 'none (add with --grace, --max-runtime, --min-runtime)';
}

const recurrenceText = (s: Schedule) =>
  s.cron !== null
    ? `cron ${s.cron} (${s.timezone ?? `local, ${localTimeZone()}`})`
    : s.everyMs !== null
      ? `every ${formatDuration(s.everyMs)}`
      : '-';

/** What a damaged schedule's owner can do about it (there is no `schedule update` here). */
const DAMAGED_HINT =
  'never runs: remove it (semaforo schedule remove NAME) and add it again, or edit it in the dashboard';

/** Each damaged schedule's problem, under the table: the STATE column only says DAMAGED. */
function damagedNotes(list: readonly Schedule[]): string {
  const damaged = list.filter((s) => s.problem !== undefined);
  if (damaged.length === 0) return '';
  const lines = [
    ...damaged.map((s) => `DAMAGED ${s.name}: ${s.problem}`),
    `a damaged schedule ${DAMAGED_HINT}`,
  ];
  return `\n\n${lines.join('\n')}`;
}

function scheduleTable(list: readonly Schedule[], now: number): string {
  if (list.length === 0) return 'no schedules (add one with `semaforo schedule add`)';
  const rows = table(
    ['NAME', 'WHEN', 'NEXT', 'LAST RUN', 'LAST TASK', 'STATE'],
    list.map((s) => [
      s.name,
      recurrenceText(s),
      s.enabled ? relativeTime(s.nextDueAt, now) : '-',
      relativeTime(s.lastEnqueuedAt, now),
      s.lastTaskId === null ? '-' : `${s.lastTaskId} ${s.lastTaskStatus ?? 'purged'}`,
      stateText(s, now),
    ]),
  );
  return rows + damagedNotes(list);
}

/** The task line; a template that could not be read at all has no kind to show. */
function taskText(s: Schedule): string {
  const t = s.task;
  if (s.problem !== undefined && t.kind === '') return '(cannot be read)';
  return (
    `${t.kind} "${t.name ?? s.name}" in group ${t.group}, priority ${t.priority}, ` +
    `${t.maxAttempts} attempt(s)${t.timeout === null ? '' : `, timeout ${formatDuration(t.timeout)}`}`
  );
}

function scheduleDetail(s: Schedule, now: number): string {
  const t = s.task;
  const lines = [
    `schedule ${s.name}${s.problem !== undefined ? ' (DAMAGED)' : s.enabled ? '' : ' (paused)'}`,
    ...(s.problem !== undefined ? [`  problem:     ${s.problem}`, `               it ${DAMAGED_HINT}`] : []),
    `  when:        ${recurrenceText(s)}`,
    `  task:        ${taskText(s)}`,
    ...(s.problem !== undefined && t.kind === '' ? [] : [`  payload:     ${JSON.stringify(t.payload)}`]),
    `  missed runs: ${s.missed}    overlap: ${s.overlap}`,
    `  last run:    ${s.lastEnqueuedAt === null ? 'never' : `${new Date(s.lastEnqueuedAt).toISOString()} (${relativeTime(s.lastEnqueuedAt, now)})`}` +
      (s.lastTaskId === null ? '' : `, task ${s.lastTaskId} ${s.lastTaskStatus ?? '(purged)'}`),
    `  skipped:     ${s.skippedOverlap} while the previous run was going, ${s.skippedMissed} missed while closed`,
    `  alarms:      ${alarmsText(s)}`,
    `  health:      ${s.health.state === 'ok' ? 'ok' : `${s.health.state}: ${s.health.message}`}`,
    `  next due${s.enabled || s.problem !== undefined ? '' : ' (if resumed now)'}:`,
    ...(s.upcoming.length
      ? s.upcoming.map((at) => `    ${new Date(at).toISOString()}  ${relativeTime(at, now)}`)
      : ['    never']),
  ];
  return lines.join('\n');
}

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
    .addCommand(list)
    .addCommand(show)
    .addCommand(simple('pause', 'stop a schedule from firing (nothing is caught up on resume)'))
    .addCommand(simple('resume', 'start firing again from the next due time'))
    .addCommand(remove)
    .addCommand(runNow)
    .addCommand(preview);
}
