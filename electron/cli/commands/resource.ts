/** `semaforo resource`: named resources tasks of any group share, their capacities, holders and waiters. */
import { Command } from 'commander';
import { parseInput, resourceCapacitySchema, resourceNameSchema } from '../../../shared/schemas.ts';
import type { CliContext } from '../context.ts';
import { resourceTable } from '../resource-format.ts';
import { wholeNumber } from '../task-options.ts';

const resourceName = (name: string) => parseInput(resourceNameSchema, name, 'resource');

export function resourceCommand(ctx: CliContext): Command {
  const resource = new Command('resource').description(
    'named resources: what tasks of any group share (a database, the CPUs), each with a capacity',
  );
  const set = new Command('set')
    .description('create a resource or change its capacity (running tasks keep what they hold)')
    .argument('<name>', 'resource name: letters, digits, . _ -')
    .requiredOption(
      '-c, --capacity <n>',
      'how much tasks may hold at once (a task holds 1 unless --uses NAME:N)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  semaforo resource set main-db --capacity 1\n  semaforo resource set cpu --capacity 4\n' +
        '  semaforo enqueue --uses main-db -- ./backup.sh\n  semaforo enqueue --uses cpu:3,nas -- ./encode.sh',
    );
  set.action(async (name: string, opts: { capacity: string }) => {
    const capacity = parseInput(
      resourceCapacitySchema,
      wholeNumber('--capacity', opts.capacity),
      '--capacity',
    );
    const r = await (await ctx.engine(set)).setResource(resourceName(name), capacity);
    ctx.print(set, r, () => `resource ${r.name}: capacity ${r.capacity} (${r.held} held now)`);
  });
  const list = new Command('list').description('every resource: capacity, holders and waiters');
  list.action(async () => {
    const resources = await (await ctx.engine(list)).resources();
    ctx.print(list, resources, () => resourceTable(resources));
  });
  const remove = new Command('remove')
    .description('delete a resource: its holders run on, tasks that name it wait until it exists again')
    .argument('<name>', 'resource name');
  remove.action(async (name: string) => {
    const n = resourceName(name);
    await (await ctx.engine(remove)).removeResource(n);
    ctx.print(remove, { removed: n }, () => `resource ${n}: removed`);
  });
  return resource.addCommand(set).addCommand(list).addCommand(remove);
}
