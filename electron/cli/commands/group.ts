/** `semaforo group`: per-group limits, adaptive ones included, and what a group learned. */
import { Command } from 'commander';
import type { GroupInfo } from '../../../shared/domain.ts';
import { formatRate, parseRate } from '../../../shared/durations.ts';
import { NotFoundError, ValidationError } from '../../../shared/errors.ts';
import { groupNameSchema, groupUpdateSchema, parseInput } from '../../../shared/schemas.ts';
import type { CliContext } from '../context.ts';
import { groupDetail, groupTable } from '../group-format.ts';
import { limitOption, namingOptions } from '../task-options.ts';

const groupName = (name: string) => parseInput(groupNameSchema, name, 'group');

interface SetOptions {
  concurrency?: string;
  rate?: string;
  burst?: string;
  adaptive?: boolean;
}

function updateOf(opts: SetOptions): Record<string, unknown> {
  const update: Record<string, unknown> = {};
  const c = limitOption('--concurrency', opts.concurrency);
  if (c !== undefined) update.concurrency = c;
  if (opts.rate !== undefined) {
    try {
      update.rate = parseRate(opts.rate);
    } catch (err) {
      throw new ValidationError([{ path: '--rate', message: (err as Error).message }]);
    }
  }
  const burst = limitOption('--burst', opts.burst);
  if (burst !== undefined) update.burst = burst;
  if (opts.adaptive !== undefined) update.adaptive = opts.adaptive;
  if (Object.keys(update).length === 0)
    throw new ValidationError([
      {
        path: '--concurrency',
        message: 'give --concurrency, --rate, --burst and/or --adaptive (or --no-adaptive)',
      },
    ]);
  return update;
}

function setLine(g: GroupInfo): string {
  const burst =
    g.rate && g.burst !== null && g.burst > 1 ? ` in bursts of ${Math.min(g.burst, g.rate.limit)}` : '';
  const limits = `concurrency ${g.concurrency ?? 'none'}, rate ${formatRate(g.rate)}${burst}`;
  return g.adaptive ? `group ${g.name}: adaptive under the caps ${limits}` : `group ${g.name}: ${limits}`;
}

async function existing(ctx: CliContext, cmd: Command, name: string): Promise<GroupInfo> {
  const groups = (await (await ctx.engine(cmd)).stats(0)).groups;
  const g = groups.find((x) => x.name === name);
  if (g) return g;
  const names = groups.map((x) => x.name);
  throw new NotFoundError(
    `group "${name}" does not exist${names.length ? ` (groups: ${names.join(', ')})` : ''}`,
  );
}

export function groupCommand(ctx: CliContext): Command {
  const group = new Command('group').description(
    'per-group limits: concurrency and rate, fixed or learned from the vendor (adaptive)',
  );
  const set = new Command('set')
    .description("set a group's limits (the group is created if new)")
    .argument('<group>', 'group name')
    .option('-c, --concurrency <n>', 'at most this many running at once across every worker, or none')
    .option(
      '-r, --rate <N/PERIOD>',
      'at most N starts per period, evenly spaced (5/s: one every 200ms): 10/min, 5/s, 30/15min, or none',
    )
    .option('--burst <n>', 'let up to n of the rate start at once (then wait for them), or none (spaced)')
    .option(
      '--adaptive',
      'learn the real limit from throttles (429/503, exit 75, ...): the limits become caps (rate cap 50/s if none)',
    )
    .option('--no-adaptive', 'use the limits as they are again (forgets what was learned)')
    .addHelpText(
      'after',
      '\nExamples:\n  semaforo group set vendor --concurrency 1 --rate 5/s\n' +
        '  semaforo group set vendor --adaptive --concurrency 8 --rate 50/s',
    );
  set.action(async (name: string, opts: SetOptions) => {
    const update = updateOf(opts);
    const engine = await ctx.engine(set);
    const g = await namingOptions(
      { concurrency: '--concurrency', 'rate.limit': '--rate', 'rate.periodMs': '--rate', burst: '--burst' },
      () => engine.updateGroup(groupName(name), parseInput(groupUpdateSchema, update)),
    );
    ctx.print(set, g, () => setLine(g));
  });
  const list = new Command('list').description('every group with its limits, what it learned, and load');
  list.action(async () => {
    const groups = (await (await ctx.engine(list)).stats(0)).groups;
    ctx.print(list, groups, () => groupTable(groups));
  });
  const show = new Command('show')
    .description('one group: its limits, and for an adaptive group what it learned and when it was throttled')
    .argument('<group>', 'group name');
  show.action(async (name: string) => {
    const g = await existing(ctx, show, groupName(name));
    ctx.print(show, g, () => groupDetail(g, Date.now()));
  });
  const reset = new Command('reset')
    .description('forget what an adaptive group learned: it starts again from its caps')
    .argument('<group>', 'group name');
  reset.action(async (name: string) => {
    const g = await existing(ctx, reset, groupName(name));
    if (g.adaptive === null)
      throw new ValidationError([
        {
          path: 'group',
          message: `group ${g.name} is not adaptive, so it learned nothing (semaforo group set ${g.name} --adaptive)`,
        },
      ]);
    const engine = await ctx.engine(reset);
    const after = await engine.updateGroup(g.name, { forgetLearned: true });
    ctx.print(reset, after, () => `group ${after.name}: forgot what it learned; back at its caps`);
  });
  return group.addCommand(set).addCommand(list).addCommand(show).addCommand(reset);
}
