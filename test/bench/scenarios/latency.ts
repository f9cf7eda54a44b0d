/**
 * 3. Latency from enqueue to handler start, with the enqueue in the worker's process and in a
 * second process. Samples of all rounds are pooled (>= 1,000 in a full run) for p50 and p99.
 */
import { percentile } from '../stats.ts';
import { runTrial, type TrialResult } from '../trial.ts';
import {
  alternate,
  atMost,
  below,
  withValues,
  type Row,
  type Scenario,
  type System,
  type Trials,
} from '../scenario.ts';

function pooled(results: Partial<Record<System, TrialResult[]>>, q: number): Row['values'] {
  const out: Row['values'] = {};
  for (const [s, list] of Object.entries(results) as [System, TrialResult[]][]) {
    out[s] = percentile(
      list.flatMap((r) => r.samples as number[]),
      q,
    );
  }
  return out;
}

function perRound(results: Partial<Record<System, TrialResult[]>>, key: string): Row['rounds'] {
  const out: Row['rounds'] = {};
  for (const [s, list] of Object.entries(results) as [System, TrialResult[]][]) {
    out[s] = list.map((r) => r[key] as number);
  }
  return out;
}

export const latency: Scenario = {
  name: 'latency',
  title: '3. Enqueue-to-start latency',
  async run(ctx) {
    const total = ctx.quick ? 200 : 1000;
    const samples = Math.ceil(total / ctx.rounds);
    const port = ctx.redisPort;
    const local: Trials = {
      semaforo: () => runTrial('semaforo.latencyLocal', { samples }),
      plainjob: () => runTrial('plainjob.latencyLocal', { samples }),
    };
    const remote: Trials = {
      semaforo: () => runTrial('semaforo.latencyRemote', { samples }),
      plainjob: () => runTrial('plainjob.latencyRemote', { samples }),
    };
    if (port !== null) {
      local.bullmq = () => runTrial('bullmq.latencyLocal', { samples, port });
      remote.bullmq = () => runTrial('bullmq.latencyRemote', { samples, port });
    }
    const rl = await alternate(ctx, 'latency in-process', local);
    const rr = await alternate(ctx, 'latency cross-process', remote);
    const n = samples * ctx.rounds;
    return {
      name: this.name,
      title: this.title,
      setup: { samplesPerRound: samples, pooledSamples: n, plainjobPollIntervalMs: 20 },
      rows: [
        withValues(
          `in-process p50 (${n} samples)`,
          'ms',
          'lower',
          pooled(rl, 0.5),
          perRound(rl, 'p50'),
          below(1, 'ms'),
        ),
        withValues(`in-process p99`, 'ms', 'lower', pooled(rl, 0.99), perRound(rl, 'p99')),
        withValues(
          `from another process p50`,
          'ms',
          'lower',
          pooled(rr, 0.5),
          perRound(rr, 'p50'),
          atMost(2, ' ms'),
        ),
        withValues(
          `from another process p99`,
          'ms',
          'lower',
          pooled(rr, 0.99),
          perRound(rr, 'p99'),
          atMost(5, ' ms'),
        ),
      ],
      checks: [],
      notes: [
        'One probe at a time, 1-21 ms apart (random, so enqueues land anywhere in a poll cycle); ' +
          'the time runs from just before the enqueue call to the first line of the handler. ' +
          'Semaforo notices another process by watching the -wal file (inotify), confirmed by PRAGMA data_version. ' +
          'plainjob has no wake-up: its worker polls, here every 20 ms (pollIntervall; its default is 1 s). ' +
          'BullMQ blocks on Redis and is woken by the add.',
      ],
    };
  },
};
