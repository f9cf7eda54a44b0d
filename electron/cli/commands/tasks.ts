/** Commands that read tasks out: list, show, stats, kinds (enqueue.ts puts them in). */
import { closedGates } from '../../core/machine/gate-view.ts';
import { Command, Option } from 'commander';
import { TASK_STATUSES, type TaskStatus } from '../../../shared/domain.ts';
import { ValidationError } from '../../../shared/errors.ts';
import {
  SORT_FIELDS,
  listQuerySchema,
  parseInput,
  scheduleNameSchema,
  taskIdSchema,
} from '../../../shared/schemas.ts';
import type { CliContext } from '../context.ts';
import { statsText, taskDetail, taskTable } from '../format.ts';
import { namingOptions, wholeNumber, type OptionNames } from '../task-options.ts';
import { handlersDir, kindsKnownWithoutImport, loadKinds } from '../kinds.ts';
import { afterWaiting, whyWaiting } from '../../../shared/why-waiting.ts';

function statusList(text: string | undefined): TaskStatus[] | undefined {
  if (text === undefined) return undefined;
  const list = text.split(',').map((s) => s.trim());
  for (const s of list) {
    if (!(TASK_STATUSES as readonly string[]).includes(s))
      throw new ValidationError([
        { path: '--status', message: `"${s}" is not a status; use ${TASK_STATUSES.join(', ')}` },
      ]);
  }
  return list as TaskStatus[];
}

function intOption(name: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : wholeNumber(name, text);
}

const LIST_OPTION_NAMES: OptionNames = {
  status: '--status',
  group: '--group',
  kind: '--kind',
  search: '--search',
  limit: '--limit',
  offset: '--offset',
};

export function listCommand(ctx: CliContext): Command {
  const cmd = new Command('list')
    .description('list tasks, newest first')
    .option('-s, --status <status>', `only these statuses, comma-separated (${TASK_STATUSES.join(', ')})`)
    .option('-g, --group <group>', 'only this group')
    .option('-k, --kind <kind>', 'only this kind')
    .option('--schedule <name>', 'only the tasks this schedule enqueued')
    .option(
      '--search <text>',
      'name, error, payload (command, URL) or output contains this text, or the id is it',
    )
    .addOption(new Option('--sort <field>', 'sort by').choices(SORT_FIELDS).default('createdAt'))
    .addOption(new Option('--order <order>', 'sort order').choices(['asc', 'desc']).default('desc'))
    .option('-l, --limit <n>', 'at most this many (1-1000)', '50')
    .option('--offset <n>', 'skip this many', '0');
  return cmd.action(
    async (opts: {
      status?: string;
      group?: string;
      kind?: string;
      schedule?: string;
      search?: string;
      sort: string;
      order: string;
      limit: string;
      offset: string;
    }) => {
      const engine = await ctx.engine(cmd);
      const query: Record<string, unknown> = {
        sort: opts.sort,
        order: opts.order,
        limit: intOption('--limit', opts.limit),
        offset: intOption('--offset', opts.offset),
      };
      const status = statusList(opts.status);
      if (status) query.status = status;
      if (opts.group !== undefined) query.group = opts.group;
      if (opts.kind !== undefined) query.kind = opts.kind;
      if (opts.search !== undefined) query.search = opts.search;
      // By name here, by id in the request (a schedule renamed keeps its tasks).
      if (opts.schedule !== undefined)
        query.schedule = (
          await engine.getSchedule(parseInput(scheduleNameSchema, opts.schedule, '--schedule'))
        ).id;
      const page = await namingOptions(LIST_OPTION_NAMES, () =>
        engine.listTasks(parseInput(listQuerySchema, query)),
      );
      const now = Date.now();
      // Stats are read only when a listed task waits: they say why.
      const waits = page.tasks.some((t) => t.status === 'pending' || t.status === 'retrying');
      const stats = waits ? await engine.stats(0) : null;
      const listed = page.tasks.map((t) => ({
        ...t,
        waiting: stats ? whyWaiting(t, { stats, now, closedGates: closedGates(stats.gates) }) : null,
      }));
      ctx.print(cmd, listed, () => {
        const shown = page.tasks.length;
        const footer =
          page.total > shown ? `\n${shown} of ${page.total} shown (use --limit/--offset for more)` : '';
        return taskTable(listed, now) + footer;
      });
    },
  );
}

export function showCommand(ctx: CliContext): Command {
  const cmd = new Command('show')
    .description('one task with its whole history (attempts, errors, output)')
    .argument('<id>', 'task id');
  return cmd.action(async (id: string) => {
    const engine = await ctx.engine(cmd);
    const task = await engine.getTask(parseInput(taskIdSchema, intOption('id', id), 'id'));
    const now = Date.now();
    const waits = task.status === 'pending' || task.status === 'retrying';
    // A worker claims only the kinds it has: a kind no worker like this one has is a reason too.
    const stats = waits ? await engine.stats(0) : null;
    const why = stats
      ? whyWaiting(task, {
          stats,
          now,
          kinds: kindsKnownWithoutImport(ctx, cmd, task.kind),
          closedGates: closedGates(stats.gates),
        })
      : null;
    const line =
      why === null
        ? ''
        : why.code === 'no-worker'
          ? `\n  waiting    for a worker that has kind "${task.kind}" (none in ${handlersDir(ctx, cmd)}; start one with semaforo work --handlers DIR)`
          : `\n  waiting    ${afterWaiting(why.message)}`;
    ctx.print(cmd, { ...task, waiting: why }, () => taskDetail(task, now).replace(/\n/, `${line}\n`));
  });
}

export function statsCommand(ctx: CliContext): Command {
  const cmd = new Command('stats')
    .description('counts per status and per group, limits, recent failures')
    .option('--failures <n>', 'how many recent failures to list', '5');
  return cmd.action(async (opts: { failures: string }) => {
    const engine = await ctx.engine(cmd);
    const s = await engine.stats(intOption('--failures', opts.failures));
    ctx.print(
      cmd,
      {
        counts: s.counts,
        settings: s.settings,
        groups: s.groups,
        resources: s.resources,
        gates: s.gates,
        recentFailures: s.recentFailures,
      },
      () => statsText(s, Date.now()),
    );
  });
}

export function kindsCommand(ctx: CliContext): Command {
  const cmd = new Command('kinds').description('the task kinds a worker here can run, built-in and your own');
  return cmd.action(async () => {
    const { handlers, errors, dir } = await loadKinds(ctx, cmd);
    const engine = await ctx.engine(cmd, { userHandlers: handlers });
    const kinds = engine.registry.list();
    // A module that did not load is a kind the user expects and no worker here has.
    if (errors.length > 0) ctx.exitCode = 1;
    ctx.print(cmd, { kinds, handlersDir: dir, loadErrors: errors }, () => {
      const lines = kinds.map(
        (k) => `${k.kind.padEnd(16)} ${k.source === 'user' ? '(yours) ' : ''}${k.description}`,
      );
      lines.push('', `Your kinds are loaded from ${dir}`);
      for (const e of errors) lines.push(`  could not load ${e.file}: ${e.message}`);
      return lines.join('\n');
    });
  });
}
