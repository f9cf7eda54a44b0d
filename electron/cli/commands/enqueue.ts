/**
 * `semaforo enqueue`, apart from the commands that read tasks: a script's or cron line's enqueue
 * loads no schema library (task-spec-quick.ts, handlers/payload.ts), only Commander and the engine.
 */
import { Command } from 'commander';
import type { Task } from '../../../shared/domain.ts';
import { ValidationError } from '../../../shared/errors.ts';
import { LIMITS } from '../../../shared/limits.ts';
import { parseTaskSpec, parseTaskSpecs } from '../../../shared/task-spec-quick.ts';
import type { CliContext } from '../context.ts';
import { progressLine } from '../io.ts';
import { loadKindsFor } from '../kinds.ts';
import { readLines } from '../read-lines.ts';
import {
  addTaskOptions,
  namingOptions,
  TASK_OPTION_NAMES,
  taskSpecFrom,
  type TaskOptions,
  withCallerCwd,
} from '../task-options.ts';

export function enqueueCommand(ctx: CliContext): Command {
  const cmd = new Command('enqueue')
    .description('add a task to the queue and print its id (with --json, the task)')
    .argument('[command...]', 'after --: a command and its arguments, enqueued as a shell task')
    .option('--stdin', 'read newline-delimited JSON task specs from stdin; enqueue all in one transaction');
  addTaskOptions(cmd).addHelpText(
    'after',
    `
Examples:
  semaforo enqueue --group vendor -- curl -fsS https://api.example.com/report
  semaforo enqueue --kind http --payload '{"method":"POST","url":"https://example.com/hook"}'
  semaforo enqueue --kind sleep --payload '{"ms":1000}' --delay 5m
  cat specs.ndjson | semaforo enqueue --stdin     # {"kind":"shell","payload":{"command":"backup.sh"}} per line`,
  );
  return cmd.action(async (command: string[], opts: TaskOptions & { stdin?: boolean }) => {
    if (opts.stdin) {
      if (command.length > 0)
        throw new ValidationError([{ path: '--stdin', message: 'cannot be combined with a command' }]);
      const { specs, lines } = await readSpecs(ctx);
      const engine = await openWithKinds(ctx, cmd, specs);
      const results = await namingLines(lines, async () =>
        engine.enqueueMany(await parseTaskSpecs(specs.map(withCallerCwd))),
      );
      ctx.print(cmd, results.map(withExisting), () =>
        results.map((r) => `${r.task.id}${r.created ? '' : ' (existing: unique key held)'}`).join('\n'),
      );
      return;
    }
    const spec = await namingOptions(TASK_OPTION_NAMES, () => taskSpecFrom(opts, command));
    const engine = await openWithKinds(ctx, cmd, [spec]);
    const r = await namingOptions(TASK_OPTION_NAMES, async () =>
      engine.enqueue(await parseTaskSpec(withCallerCwd(spec))),
    );
    ctx.print(
      cmd,
      withExisting(r),
      () => `${r.task.id}${r.created ? '' : ' (existing task: its unique key is held)'}`,
    );
  });
}

/**
 * Runs `f`; a ValidationError about `tasks[i]` names the input line the spec came from instead
 * (`line 3: timeout: …`), as a JSON syntax error does: blank lines make the two differ.
 */
async function namingLines<T>(lines: readonly number[], f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(
      err.issues.map((i) => {
        const m = /^tasks\[(\d+)\]\.?/.exec(i.path);
        const line = m ? lines[Number(m[1])] : undefined;
        if (line === undefined) return i;
        const field = i.path.slice(m![0].length);
        return { ...i, path: field ? `line ${line}: ${field}` : `line ${line}` };
      }),
    );
  }
}

/** The task, with `existing: true` when its unique key was held and nothing new was enqueued. */
function withExisting(r: { task: Task; created: boolean }): Task | (Task & { existing: true }) {
  return r.created ? r.task : { ...r.task, existing: true };
}

async function readSpecs(ctx: CliContext): Promise<{ specs: unknown[]; lines: number[] }> {
  const io = ctx.ioHandle;
  const progress = progressLine(io);
  const specs: unknown[] = [];
  const lines: number[] = [];
  let lineNo = 0;
  for await (const line of readLines(io.stdin)) {
    lineNo++;
    if (line.trim() === '') continue;
    if (specs.length >= LIMITS.batch)
      throw new ValidationError([
        { path: 'stdin', message: `holds more than ${LIMITS.batch} tasks; split it` },
      ]);
    try {
      specs.push(JSON.parse(line));
    } catch (err) {
      throw new ValidationError([
        { path: `line ${lineNo}`, message: `is not JSON (${(err as Error).message})` },
      ]);
    }
    lines.push(lineNo);
    if (specs.length % 1000 === 0) progress.update(`read ${specs.length} task specs…`);
  }
  progress.done();
  if (specs.length === 0) throw new ValidationError([{ path: 'stdin', message: 'holds no task specs' }]);
  return { specs, lines };
}

/**
 * Opens the engine with the user's kinds loaded too when a spec names one, so its payload
 * validates at enqueue; built-in kinds import none of the user's modules.
 */
async function openWithKinds(ctx: CliContext, cmd: Command, specs: readonly unknown[]) {
  const kinds = specs.map((s) =>
    typeof s === 'object' && s !== null ? (s as { kind?: unknown }).kind : null,
  );
  const { handlers } = await loadKindsFor(ctx, cmd, kinds);
  return ctx.engine(cmd, { userHandlers: handlers });
}
