/** 5. Memory: peak RSS of a worker process that drains 10,000 vs 200,000 tasks from a file. */
import { plainjobFile, semaforoFile } from '../fixtures.ts';
import { alternate, atMost, makeRow, pick, type Scenario } from '../scenario.ts';
import { benchDir, removeDir, withCopy } from '../tmp.ts';
import { num, runTrial } from '../trial.ts';

export const memory: Scenario = {
  name: 'memory',
  title: '5. Worker memory',
  async run(ctx) {
    const small = ctx.quick ? 2000 : 10_000;
    const large = ctx.quick ? 20_000 : 200_000;
    const dir = benchDir();
    try {
      ctx.log(`memory: preparing files of ${small} and ${large} tasks for each system`);
      const files = {
        semaforo: [
          await semaforoFile(dir, 's-small.db', { ready: small }),
          await semaforoFile(dir, 's-large.db', { ready: large }),
        ],
        plainjob: [
          plainjobFile(dir, 'p-small.db', { ready: small }),
          plainjobFile(dir, 'p-large.db', { ready: large }),
        ],
      };
      const sizes = [small, large];
      const both = (s: 'semaforo' | 'plainjob') => async (round: number) => {
        const run = (i: number) =>
          withCopy(files[s][i]!, (file) => runTrial(`${s}.drain`, { file, n: sizes[i] }));
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        const out: Record<number, Awaited<ReturnType<typeof run>>> = {};
        for (const i of order) out[i] = await run(i);
        const a = num(out[0]!, 'peakRssMb');
        const b = num(out[1]!, 'peakRssMb');
        return {
          small: a,
          large: b,
          growth: b / a,
          heapSmall: num(out[0]!, 'heapAfterGcMb'),
          heapLarge: num(out[1]!, 'heapAfterGcMb'),
          largeRate: num(out[1]!, 'rate'),
        };
      };
      const results = await alternate(ctx, 'memory', {
        semaforo: both('semaforo'),
        plainjob: both('plainjob'),
      });
      const k = (n: number) => n.toLocaleString('en-US');
      return {
        name: this.name,
        title: this.title,
        setup: { small, large },
        rows: [
          makeRow(`peak RSS after ${k(small)} drained`, 'MB', 'lower', pick(results, 'small')),
          makeRow(`peak RSS after ${k(large)} drained`, 'MB', 'lower', pick(results, 'large')),
          makeRow(
            `RSS growth (${k(large)} / ${k(small)})`,
            'x',
            'lower',
            pick(results, 'growth'),
            atMost(1.25, 'x'),
          ),
          makeRow(`JS heap after GC, after ${k(small)}`, 'MB', 'lower', pick(results, 'heapSmall')),
          makeRow(`JS heap after GC, after ${k(large)}`, 'MB', 'lower', pick(results, 'heapLarge')),
          makeRow(`drain rate at ${k(large)} (info)`, 'tasks/s', 'higher', pick(results, 'largeRate')),
        ],
        checks: [],
        notes: [
          "Peak RSS is the worker process's maxRSS (process.resourceUsage) at the end of the drain, " +
            'Node runtime included; the tasks were enqueued by another process beforehand. The heap rows ' +
            'are heapUsed after a forced full GC at the end: memory still held, as opposed to transient.',
        ],
      };
    } finally {
      removeDir(dir);
    }
  },
};
