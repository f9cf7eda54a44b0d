/** `semaforo migrate`: copy a queue file into a PostgreSQL queue, verified, all or nothing. */
import { Command } from 'commander';
import { TASK_STATUSES } from '../../../shared/domain.ts';
import { ValidationError } from '../../../shared/errors.ts';
import { copyQueue, type CopyReport } from '../../core/store/copy-queue.ts';
import type { CliContext } from '../context.ts';

/** A table this big reports its progress on stderr as it goes. */
const PROGRESS_FROM = 10_000;

const LABELS: Record<keyof CopyReport['copied'], string> = {
  tasks: 'tasks',
  history: 'history rows',
  groups: 'groups',
  group_starts: 'rate-window starts',
  group_limits: 'learned limits',
  resources: 'resources',
  gates: 'machine gates',
  schedules: 'schedules',
  settings: 'settings',
};

export function migrateCommand(ctx: CliContext): Command {
  const cmd = new Command('migrate')
    .description(
      'copy a queue file (tasks, history, groups, settings, schedules) into a PostgreSQL queue, and verify the counts',
    )
    .option(
      '--from <file>',
      'the queue file to copy (default: the queue this command line uses, see `semaforo where`)',
    )
    .option(
      '--to <url>',
      'the PostgreSQL queue: postgres://user@host:port/db, with ?schema=NAME for a named queue',
    )
    .option('--replace', 'the target holds a queue already: replace it with the copy (its tasks are deleted)')
    .addHelpText(
      'after',
      `
The copy is one transaction: the target ends up with the whole queue or is left as it was. Task ids,
history and each schedule's fired due times are kept, so nothing runs twice. Stop the workers on the
file first (semaforo work, serve, the tray app); the file itself is left as it is.
Example: semaforo migrate --from ~/queue.db --to postgres://me@db.local/semaforo`,
    );
  return cmd.action(async (opts: { from?: string; to?: string; replace?: boolean }) => {
    if (!opts.to)
      throw new ValidationError([
        { path: '--to', message: 'give the PostgreSQL queue, e.g. postgres://user@host/db' },
      ]);
    const from = opts.from ?? ctx.dbPath(cmd);
    const io = ctx.ioHandle;
    const report = await copyQueue(from, opts.to, {
      replace: opts.replace === true,
      onProgress: (table, done, total) => {
        if (total >= PROGRESS_FROM && (done % PROGRESS_FROM < 2000 || done === total))
          io.err(`migrate: ${LABELS[table]} ${done}/${total}\n`);
      },
    });
    const running = report.taskStatuses.running ?? 0;
    if (running > 0)
      io.err(
        `note: ${running} task(s) were running in ${from}; a worker on PostgreSQL takes them over once their leases expire\n`,
      );
    ctx.print(cmd, report, () => {
      const statuses = TASK_STATUSES.filter((s) => report.taskStatuses[s])
        .map((s) => `${s} ${report.taskStatuses[s]}`)
        .join(', ');
      const width = Math.max(...Object.values(LABELS).map((l) => l.length));
      return [
        `copied ${report.from} to ${report.to}${report.replaced ? ' (replacing the queue it held)' : ''}; counts verified:`,
        ...(Object.keys(LABELS) as (keyof typeof LABELS)[]).map(
          (t) =>
            `  ${LABELS[t].padEnd(width)}  ${report.copied[t]}${t === 'tasks' && statuses ? ` (${statuses})` : ''}`,
        ),
      ].join('\n');
    });
  });
}
