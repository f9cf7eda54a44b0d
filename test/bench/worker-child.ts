/**
 * The process one trial runs in: `node worker-child.ts <peer>.<trial> '<json args>'`. Prints the
 * trial's figures as a BENCH_RESULT line (trial.ts). `<peer>.enqueuer` roles instead stay up and
 * serve enqueue requests over IPC for the cross-process latency trials, and `<peer>.drainWorker`
 * roles drain beside others (peers/drain-workers.ts).
 */
import { reportResult } from './trial.ts';
import { cleanupDirs } from './tmp.ts';

type TrialFn = (args: never) => unknown;

const loaders: Record<string, () => Promise<Record<string, unknown>>> = {
  semaforo: () => import('./peers/semaforo.ts'),
  plainjob: () => import('./peers/plainjob.ts'),
  bullmq: () => import('./peers/bullmq.ts'),
  'semaforo-pg': () => import('./peers/semaforo-pg.ts'),
  graphile: () => import('./peers/graphile.ts'),
  pgboss: () => import('./peers/pgboss.ts'),
};

async function main(): Promise<void> {
  const [name = '', json = '{}'] = process.argv.slice(2);
  const [peer = '', trial = ''] = name.split('.');
  const load = loaders[peer];
  if (!load) throw new Error(`unknown peer in "${name}"`);
  const fn = (await load())[trial];
  if (typeof fn !== 'function') throw new Error(`unknown trial "${name}"`);
  const result = await (fn as TrialFn)(JSON.parse(json) as never);
  if (trial === 'enqueuer' || trial === 'drainWorker') return;
  reportResult(result as object);
  cleanupDirs();
  // Libraries may keep timers or sockets open (plainjob's maintenance interval, Redis): the
  // figures are out, so end here.
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  cleanupDirs();
  process.exit(1);
});
