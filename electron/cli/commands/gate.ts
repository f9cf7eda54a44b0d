/** `semaforo gate`: machine gates, for the whole queue or one group, and their readings here. */
import { Command } from 'commander';
import type { GateConfig } from '../../../shared/domain.ts';
import { ValidationError } from '../../../shared/errors.ts';
import { gateUpdateSchema, groupNameSchema, parseInput } from '../../../shared/schemas.ts';
import { formatDuration } from '../../../shared/durations.ts';
import { formatBytes, parseBytes } from '../../../shared/sizes.ts';
import { gateStateText, gateViews } from '../../core/machine/gate-view.ts';
import { readMachine } from '../../core/machine/readings.ts';
import type { CliContext } from '../context.ts';
import { table } from '../format.ts';
import { duration, namingOptions } from '../task-options.ts';

interface SetOptions {
  maxLoad?: string;
  minFreeMemory?: string;
  onAc?: boolean;
  whenIdle?: string;
  pauseRunning?: boolean;
}

const groupOf = (name: string | undefined) =>
  name === undefined ? null : parseInput(groupNameSchema, name, 'group');

function bad(option: string, message: string): never {
  throw new ValidationError([{ path: option, message }]);
}

function updateOf(opts: SetOptions): Record<string, unknown> {
  const update: Record<string, unknown> = {};
  if (opts.maxLoad !== undefined) {
    const n = Number(opts.maxLoad);
    if (opts.maxLoad === 'none') update.maxLoad = null;
    else if (opts.maxLoad.trim() === '' || !Number.isFinite(n))
      bad('--max-load', `"${opts.maxLoad}" is not a number (load per core, e.g. 0.8) or none`);
    else update.maxLoad = n;
  }
  if (opts.minFreeMemory !== undefined) {
    const bytes = opts.minFreeMemory === 'none' ? null : parseBytes(opts.minFreeMemory);
    if (bytes === null && opts.minFreeMemory !== 'none')
      bad('--min-free-memory', `"${opts.minFreeMemory}" is not a size (512m, 1g, 2GiB) or none`);
    update.minFreeMemory = bytes;
  }
  if (opts.onAc !== undefined) update.onAc = opts.onAc;
  if (opts.whenIdle !== undefined)
    update.whenIdleMs = opts.whenIdle === 'none' ? null : duration('--when-idle', opts.whenIdle);
  if (opts.pauseRunning !== undefined) update.pauseRunning = opts.pauseRunning;
  if (Object.keys(update).length === 0)
    bad(
      '--max-load',
      'give --max-load, --min-free-memory, --on-ac, --when-idle and/or --pause-running (or their --no- forms)',
    );
  return update;
}

const scopeName = (g: GateConfig) => (g.group === null ? '(queue)' : g.group);

function conditions(g: GateConfig): string {
  const parts = [
    g.maxLoad !== null ? `load ≤ ${g.maxLoad} per core` : null,
    g.minFreeMemory !== null ? `≥ ${formatBytes(g.minFreeMemory)} available` : null,
    g.onAc ? 'on AC' : null,
    g.whenIdleMs !== null ? `user idle ≥ ${formatDuration(g.whenIdleMs)}` : null,
  ];
  const text = parts.filter(Boolean).join(', ') || 'nothing';
  return g.pauseRunning ? `${text}; pauses running shell tasks` : text;
}

export function gateCommand(ctx: CliContext): Command {
  const gate = new Command('gate').description(
    "machine gates: no new start while the worker's machine is loaded, short of memory, on battery or in use",
  );
  const set = new Command('set')
    .description(
      'set the gate of a group, or of the whole queue without one (judged by each worker on its machine)',
    )
    .argument('[group]', 'group name; none: every group')
    .option('--max-load <n>', '1-minute load average per core above which no task starts (e.g. 0.8), or none')
    .option('--min-free-memory <size>', 'available memory below which no task starts (512m, 1g), or none')
    .option('--on-ac', 'start tasks only on mains power')
    .option('--no-on-ac', 'start tasks on battery too')
    .option(
      '--when-idle <duration>',
      'start tasks only once the user has been idle this long (5m; read by the tray app only), or none',
    )
    .option(
      '--pause-running',
      "while closed, stop the scope's running shell tasks here (SIGSTOP) until it opens",
    )
    .option('--no-pause-running', 'leave running tasks alone while closed')
    .addHelpText(
      'after',
      '\nExamples:\n  semaforo gate set --max-load 0.8\n  semaforo gate set backups --max-load 0.8 --min-free-memory 1g --on-ac\n  semaforo gate set indexing --when-idle 5m --pause-running',
    );
  set.action(async (name: string | undefined, opts: SetOptions) => {
    const update = updateOf(opts);
    const engine = await ctx.engine(set);
    const options = { maxLoad: '--max-load', minFreeMemory: '--min-free-memory', whenIdleMs: '--when-idle' };
    const g = await namingOptions(options, () =>
      engine.setGate(groupOf(name), parseInput(gateUpdateSchema, update)),
    );
    ctx.print(set, g, () => `gate ${scopeName(g)}: starts only with ${conditions(g)}`);
  });
  const list = new Command('list').description('every gate, and whether it is closed on this machine now');
  list.action(async () => {
    const gates = (await (await ctx.engine(list)).stats(0)).gates;
    const reading = readMachine();
    const views = gateViews(gates, reading);
    ctx.print(list, { gates, here: reading }, () =>
      views.length === 0
        ? 'No gates (semaforo gate set [GROUP] --max-load 0.8).'
        : table(
            ['GATE', 'STARTS ONLY WITH', 'HERE NOW'],
            views.map((v) => [scopeName(v.gate), conditions(v.gate), gateStateText(v)]),
          ),
    );
  });
  const remove = new Command('remove')
    .description('remove the gate of a group, or of the whole queue')
    .argument('[group]', 'group name; none: the queue gate');
  remove.action(async (name: string | undefined) => {
    const group = groupOf(name);
    await (await ctx.engine(remove)).removeGate(group);
    ctx.print(remove, { removed: group }, () => `gate ${group ?? '(queue)'}: removed`);
  });
  return gate.addCommand(set).addCommand(list).addCommand(remove);
}
