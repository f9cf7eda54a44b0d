/**
 * 4. Scale: the claim+complete rate of M ready tasks when the file already holds 1,000 vs
 * 1,000,000 other tasks (done, failed, cancelled with their history, and delayed pending ones).
 * The ratio of the two rates shows whether a claim's cost grows with the table.
 */
import { fileSizeMb, plainjobFile, semaforoFile } from '../fixtures.ts';
import { alternate, atMost, makeRow, pick, type Scenario } from '../scenario.ts';
import { benchDir, removeDir, withCopy } from '../tmp.ts';
import { num, runTrial } from '../trial.ts';

export const scale: Scenario = {
  name: 'scale',
  title: '4. Scale with the table',
  async run(ctx) {
    const small = 1000;
    const large = ctx.quick ? 100_000 : 1_000_000;
    const m = ctx.quick ? 2000 : 20_000;
    const dir = benchDir();
    try {
      ctx.log(`scale: writing files with ${small} and ${large} tasks (+${m} ready) for each system`);
      const files = {
        semaforo: [
          await semaforoFile(dir, 's-small.db', { background: small, ready: m }),
          await semaforoFile(dir, 's-large.db', { background: large, ready: m }),
        ],
        plainjob: [
          plainjobFile(dir, 'p-small.db', { background: small, ready: m }),
          plainjobFile(dir, 'p-large.db', { background: large, ready: m }),
        ],
      };
      // Semaforo's rate counts from its first task done: a dispatcher's start on a file over 64 MB
      // reads every page once (its integrity check), a cost of the start, shown in its own row.
      const both = (s: 'semaforo' | 'plainjob') => async (round: number) => {
        const run = (i: number) =>
          withCopy(files[s][i]!, (file) => runTrial(`${s}.drain`, { file, n: m })).then((r) =>
            s === 'semaforo'
              ? { rate: num(r, 'steadyRate'), startup: num(r, 'startupMs') }
              : { rate: num(r, 'rate'), startup: null },
          );
        // Alternate the order of the sizes too.
        let a: Awaited<ReturnType<typeof run>>, b: Awaited<ReturnType<typeof run>>;
        if (round % 2 === 0) {
          a = await run(0);
          b = await run(1);
        } else {
          b = await run(1);
          a = await run(0);
        }
        return {
          small: a.rate,
          large: b.rate,
          growth: a.rate / b.rate,
          ...(b.startup === null ? {} : { startSmall: a.startup!, startLarge: b.startup }),
        };
      };
      const results = await alternate(ctx, 'scale', {
        semaforo: both('semaforo'),
        plainjob: both('plainjob'),
      });
      const smallRow = makeRow(
        `${small.toLocaleString('en-US')} tasks in the file`,
        'tasks/s',
        'higher',
        pick(results, 'small'),
      );
      const largeRow = makeRow(
        `${large.toLocaleString('en-US')} tasks in the file`,
        'tasks/s',
        'higher',
        pick(results, 'large'),
      );
      const growthRow = makeRow(
        `cost growth (rate at ${small.toLocaleString('en-US')} / at ${large.toLocaleString('en-US')})`,
        'x',
        'lower',
        pick(results, 'growth'),
        atMost(1.5, 'x'),
      );
      const startRows = (['startSmall', 'startLarge'] as const).map((k, i) =>
        makeRow(
          `Semaforo: dispatcher start to first task done, ${(i ? large : small).toLocaleString('en-US')} tasks (info)`,
          'ms',
          'lower',
          pick({ semaforo: results.semaforo }, k),
        ),
      );
      return {
        name: this.name,
        title: this.title,
        setup: {
          measuredTasks: m,
          small,
          large,
          semaforoLargeFileMb: Math.round(fileSizeMb(files.semaforo[1]!)),
          plainjobLargeFileMb: Math.round(fileSizeMb(files.plainjob[1]!)),
        },
        rows: [smallRow, largeRow, growthRow, ...startRows],
        checks: [],
        notes: [
          `Each trial drains ${m.toLocaleString('en-US')} ready no-op tasks from a copy of the file ` +
            '(5/8 done, 1/8 failed, 1/8 cancelled, 1/8 pending but delayed a day). The growth row ' +
            "is the median of the per-round ratios. Semaforo's rates are counted from its first task " +
            'done; before it, a dispatcher opening a file over 64 MB checks it (PRAGMA quick_check, a ' +
            `read of every page: the ${Math.round(fileSizeMb(files.semaforo[1]!))} MB file here) and ` +
            'runs its first tick, shown in the start rows.',
        ],
      };
    } finally {
      removeDir(dir);
    }
  },
};
