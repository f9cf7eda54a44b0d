/** `semaforo workers`: who holds which leases, since when (the dashboard's Workers screen). */
import { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { relativeTime, table } from '../format.ts';

export function workersCommand(ctx: CliContext): Command {
  const cmd = new Command('workers').description(
    'who holds which leases: each worker (id, host, pid) and the tasks it runs, since when',
  );
  return cmd.action(async () => {
    const engine = await ctx.engine(cmd);
    const workers = await engine.workers();
    const now = Date.now();
    ctx.print(cmd, workers, () => {
      if (workers.length === 0) return 'no worker holds a lease';
      const rows = workers.flatMap((w) =>
        w.tasks.map((t) => [
          w.id,
          w.host ?? '-',
          w.pid === null ? '-' : String(w.pid),
          String(t.id),
          t.name,
          t.group,
          relativeTime(t.startedAt, now),
          // an expired lease reads "5s ago": its owner stopped renewing and may be gone
          relativeTime(t.leaseExpiresAt, now),
        ]),
      );
      return table(['WORKER', 'HOST', 'PID', 'ID', 'TASK', 'GROUP', 'STARTED', 'LEASE ENDS'], rows);
    });
  });
}
