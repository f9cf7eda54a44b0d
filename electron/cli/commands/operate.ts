/** Operator actions: retry, cancel, delete, pause/resume, purge, queue settings. */
import { Command, Option } from 'commander';
import { formatDuration } from '../../../shared/durations.ts';
import { NotFoundError, ValidationError } from '../../../shared/errors.ts';
import { backendOf, PG_DURABILITY } from '../../../shared/queue-place.ts';
import {
  durationSchema,
  groupNameSchema,
  parseInput,
  retryFilterSchema,
  settingsUpdateSchema,
  taskIdSchema,
} from '../../../shared/schemas.ts';
import type { CliContext } from '../context.ts';
import { canAsk, confirm, describePurge, previewPurge } from '../purge-preview.ts';
import { duration, limitOption, namingOptions, type OptionNames } from '../task-options.ts';

function ids(list: readonly string[]): number[] {
  return list.map((s, i) => {
    if (!/^\d+$/.test(s))
      throw new ValidationError([{ path: `id[${i}]`, message: `"${s}" is not a task id` }]);
    return parseInput(taskIdSchema, Number(s), `ids[${i}]`);
  });
}

const groupName = (name: string) => parseInput(groupNameSchema, name, 'group');

const listed = (n: number[]) => (n.length > 8 ? `${n.slice(0, 8).join(', ')}, …` : n.join(', '));

export function retryCommand(ctx: CliContext): Command {
  const cmd = new Command('retry')
    .description('send tasks back to the queue with fresh attempts: the given ids, or every failed one')
    .argument('[id...]', 'task ids')
    .option('--failed', 'retry every failed task (optionally only of --group / --kind)')
    .option('-g, --group <group>', 'with --failed: only this group')
    .option('-k, --kind <kind>', 'with --failed: only this kind');
  return cmd.action(async (list: string[], opts: { failed?: boolean; group?: string; kind?: string }) => {
    if (!opts.failed && list.length === 0)
      throw new ValidationError([
        { path: 'id', message: 'give task ids, or --failed to retry every failed task' },
      ]);
    if (opts.failed && list.length > 0)
      throw new ValidationError([{ path: '--failed', message: 'give either ids or --failed, not both' }]);
    if (!opts.failed && (opts.group || opts.kind))
      throw new ValidationError([{ path: '--group', message: '--group and --kind go with --failed' }]);
    const engine = await ctx.engine(cmd);
    const filter: Record<string, string> = {};
    if (opts.group) filter.group = opts.group;
    if (opts.kind) filter.kind = opts.kind;
    const retried = opts.failed
      ? await engine.retryFailed(parseInput(retryFilterSchema, filter))
      : await engine.retry(ids(list));
    ctx.print(cmd, { ids: retried }, () =>
      retried.length ? `retried ${retried.length} task(s): ${listed(retried)}` : 'nothing to retry',
    );
  });
}

export function cancelCommand(ctx: CliContext): Command {
  const cmd = new Command('cancel')
    .description('cancel tasks: waiting ones at once, running ones are stopped by their worker')
    .argument('<id...>', 'task ids');
  return cmd.action(async (list: string[]) => {
    const out = await (await ctx.engine(cmd)).cancel(ids(list));
    ctx.print(cmd, out, () => {
      const lines: string[] = [];
      if (out.cancelled.length) lines.push(`cancelled ${listed(out.cancelled)}`);
      if (out.requested.length) {
        const one = out.requested.length === 1;
        lines.push(
          `stopping ${listed(out.requested)}: ${one ? 'it is' : 'they are'} running; ` +
            `${one ? 'its worker stops it' : 'their workers stop them'} and ${one ? 'it ends' : 'they end'} cancelled`,
        );
      }
      return lines.join('\n') || 'nothing to cancel (those tasks have ended)';
    });
  });
}

export function deleteCommand(ctx: CliContext): Command {
  const cmd = new Command('delete')
    .description('delete tasks and their history (running tasks must be cancelled first)')
    .argument('<id...>', 'task ids');
  return cmd.action(async (list: string[]) => {
    const engine = await ctx.engine(cmd);
    const wanted = ids(list);
    // As cancel does: an id that matches nothing is a typo, and nothing is deleted.
    for (const id of wanted) await engine.getTask(id);
    const removed = await engine.remove(wanted);
    ctx.print(cmd, { ids: removed }, () =>
      removed.length ? `deleted ${listed(removed)}` : 'nothing deleted',
    );
  });
}

export function pauseCommands(ctx: CliContext): Command[] {
  return (['pause', 'resume'] as const).map((verb) => {
    const cmd = new Command(verb)
      .description(
        verb === 'pause'
          ? 'stop starting tasks, in the whole queue or one group (running tasks finish)'
          : 'start tasks again, in the whole queue or one group',
      )
      .argument('[group]', 'only this group');
    return cmd.action(async (group: string | undefined) => {
      const engine = await ctx.engine(cmd);
      const name = group === undefined ? undefined : groupName(group);
      // `pause nosuchgroup` would create that group, paused, and say "paused".
      if (name !== undefined) {
        const names = (await engine.stats(0)).groups.map((g) => g.name);
        if (!names.includes(name))
          throw new NotFoundError(
            `group "${name}" does not exist${names.length ? ` (groups: ${names.join(', ')})` : ''}; ` +
              'a group appears with its first task or `semaforo group set`',
          );
      }
      await engine[verb](name);
      ctx.print(
        cmd,
        { paused: verb === 'pause', group: group ?? null },
        () => `${group ? `group ${group}` : 'queue'} ${verb === 'pause' ? 'paused' : 'resumed'}`,
      );
    });
  });
}

export function purgeCommand(ctx: CliContext): Command {
  const cmd = new Command('purge')
    .description('delete finished tasks (done, failed, cancelled) that ended long enough ago')
    .option('--older-than <dur>', 'age to keep, e.g. 30d, 12h (default: the retention setting)')
    .option('-y, --yes', 'do not ask (on a terminal purge says what it will delete and asks first)')
    .addHelpText('after', '\nWithout a terminal (cron, scripts) it does not ask; it says what it deleted.');
  return cmd.action(async (opts: { olderThan?: string; yes?: boolean }) => {
    const engine = await ctx.engine(cmd);
    let ageMs = duration('--older-than', opts.olderThan);
    if (ageMs === undefined) {
      const days = (await engine.stats(0)).settings.retentionDays;
      // Retention 0 means keep forever, not "everything is old enough".
      if (days === 0)
        throw new ValidationError([
          { path: '--older-than', message: 'retention is set to keep forever; give --older-than, e.g. 30d' },
        ]);
      ageMs = days * 86_400_000;
    }
    const preview = await previewPurge(engine, Date.now() - ageMs);
    const what = describePurge(preview, ageMs);
    if (preview.count > 0 && !opts.yes && canAsk(ctx.ioHandle)) {
      ctx.ioHandle.err(`purge will delete ${what}\n`);
      if (!(await confirm(ctx.ioHandle, 'Delete them?'))) {
        ctx.print(cmd, { count: 0, before: preview.before }, () => 'nothing deleted');
        return;
      }
    }
    const count =
      preview.count === 0 ? 0 : await engine.purge(parseInput(durationSchema, ageMs, 'olderThan'));
    ctx.print(cmd, { count, before: preview.before }, () =>
      count === 0
        ? `nothing to purge: no ${what.replace(/^0 /, '')}`
        : `purged ${count === preview.count ? what : `${count} finished task(s)`}`,
    );
  });
}

const SETTINGS_OPTION_NAMES: OptionNames = {
  globalConcurrency: '--concurrency',
  retentionDays: '--retention',
  'notifications.groups': '--notify-groups',
  failureWebhook: '--webhook',
  durability: '--durability',
};

export function settingsCommand(ctx: CliContext): Command {
  const cmd = new Command('settings')
    .description('show or change the queue-wide settings')
    .option('-c, --concurrency <n>', 'global limit: tasks running at once across every worker')
    .option('--retention <dur>', 'purge finished tasks after this long (whole days, e.g. 30d; 0 keeps them)')
    .addOption(
      new Option('--notify <on|off>', 'desktop notifications for tasks that fail for good').choices([
        'on',
        'off',
      ]),
    )
    .option('--notify-groups <groups>', 'notify only for these groups (comma-separated), or all')
    .option('--webhook <url>', 'POST each task that fails for good to this URL (via the queue), or none')
    .addOption(
      new Option(
        '--durability <level>',
        'results: results are on disk before they are reported, enqueues survive process crashes; ' +
          'full: every enqueue waits for the disk too (slower)',
      ).choices(['results', 'full']),
    );
  return cmd.action(
    async (opts: {
      concurrency?: string;
      retention?: string;
      notify?: string;
      notifyGroups?: string;
      webhook?: string;
      durability?: string;
    }) => {
      // The PostgreSQL store never reads it (as the dashboard's Settings screen says; it
      // refuses `full`, for every face).
      const onPostgres = backendOf(ctx.dbPath(cmd)) === 'postgres';
      const engine = await ctx.engine(cmd);
      const update: Record<string, unknown> = {};
      const c = limitOption('--concurrency', opts.concurrency);
      if (c === null)
        throw new ValidationError([{ path: '--concurrency', message: 'the global limit cannot be none' }]);
      if (c !== undefined) update.globalConcurrency = c;
      const r = duration('--retention', opts.retention);
      if (r !== undefined) {
        if (r % 86_400_000 !== 0)
          throw new ValidationError([{ path: '--retention', message: 'must be whole days, e.g. 30d' }]);
        update.retentionDays = r / 86_400_000;
      }
      const notifications: Record<string, unknown> = {};
      if (opts.notify !== undefined) notifications.enabled = opts.notify === 'on';
      if (opts.notifyGroups !== undefined)
        notifications.groups =
          // Each group once, in the order given, as the dashboard saves them.
          opts.notifyGroups === 'all'
            ? null
            : [...new Set(opts.notifyGroups.split(',').map((g) => g.trim()))];
      if (Object.keys(notifications).length) update.notifications = notifications;
      if (opts.webhook !== undefined) update.failureWebhook = opts.webhook === 'none' ? null : opts.webhook;
      if (opts.durability !== undefined) update.durability = opts.durability;
      const s = Object.keys(update).length
        ? await namingOptions(SETTINGS_OPTION_NAMES, () =>
            engine.updateSettings(parseInput(settingsUpdateSchema, update)),
          )
        : (await engine.stats(0)).settings;
      ctx.print(cmd, s, () =>
        [
          `global concurrency  ${s.globalConcurrency}`,
          `queue               ${s.paused ? 'paused' : 'running'}`,
          `retention           ${s.retentionDays ? formatDuration(s.retentionDays * 86_400_000) : 'keep forever'}`,
          `notifications       ${s.notifications.enabled ? `on, ${s.notifications.groups ? `groups ${s.notifications.groups.join(', ')}` : 'every group'}` : 'off'}`,
          `failure webhook     ${s.failureWebhook ?? 'none'}`,
          `durability          ${onPostgres ? `SQLite queues only; ${PG_DURABILITY}` : s.durability === 'full' ? 'full: every commit waits for the disk' : 'results: results wait for the disk, enqueues do not'}`,
        ].join('\n'),
      );
    },
  );
}
