/**
 * 8. What a cron line pays: the wall time of `semaforo --version`, `enqueue -- true` and
 * `run -- true`, each a fresh process through bin/semaforo.js, against `node -e 0` timed in the
 * same rounds; and the memory of a `run` waiting for its turn (its group is full), alone and
 * twenty at once (a crontab's lines colliding).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../stats.ts';
import { withValues, type Goal, type Row, type Scenario } from '../scenario.ts';
import { benchDir, removeDir } from '../tmp.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BIN = path.join(ROOT, 'bin/semaforo.js');

type Env = Record<string, string>;

function timed(args: readonly string[], env: Env): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const withinOf =
  (base: number | null, max: number, aim: number) =>
  (row: Row): Goal => {
    const v = row.values.semaforo ?? null;
    const r = v === null || base === null ? null : v / base;
    return {
      text: `<= ${max}x node -e 0 (aim ${aim}x)${r === null ? '' : `: ${r.toFixed(2)}x`}`,
      met: r === null ? null : r <= max,
    };
  };

interface Memory {
  rss: number;
  /** the process's own pages (heap, stacks), as opposed to the binary's pages it shares */
  anon: number;
  /** its share: own pages, plus each shared page divided by the number of processes mapping it */
  pss: number;
}

function memoryOf(pid: number): Memory {
  const kb = (text: string, field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)![1]) / 1024;
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return { rss: kb(status, 'VmRSS'), anon: kb(status, 'RssAnon'), pss: kb(rollup, 'Pss') };
}

/** Memory of an idle `node` (the floor of any Node process). */
async function idleNodeMemory(): Promise<Memory> {
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("up"); setTimeout(() => {}, 30000)'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    await new Promise((resolve) => child.stdout.once('data', resolve));
    return memoryOf(child.pid!);
  } finally {
    child.kill();
  }
}

/** Memory of `count` `run`s that wait: their group's one slot is held by another `run`. */
async function waitingRunsMemory(env: Env, count: number): Promise<Memory[]> {
  timed([BIN, 'group', 'set', 'held', '--concurrency', '1'], env);
  // Named apart: the last round's holder may still show as running while it ends.
  const name = `holder-${process.hrtime.bigint()}`;
  const holder = spawn(
    process.execPath,
    [BIN, 'run', '--group', 'held', '--name', name, '--', 'sleep', '60'],
    {
      env,
      stdio: 'ignore',
    },
  );
  const waiters: ReturnType<typeof spawn>[] = [];
  try {
    const deadline = Date.now() + 30_000;
    while (
      !spawnSync(process.execPath, [BIN, 'list', '--status', 'running'], {
        env,
        encoding: 'utf8',
      }).stdout.includes(name)
    ) {
      if (Date.now() > deadline) throw new Error('the holding run never started');
    }
    const waiting: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const waiter = spawn(process.execPath, [BIN, 'run', '--group', 'held', '--', 'true'], {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      waiters.push(waiter);
      // It says it waits after a second; by then it has opened the file and is polling.
      waiting.push(
        new Promise<void>((resolve, reject) => {
          let err = '';
          waiter.stderr!.on('data', (d: Buffer) => {
            err += d.toString();
            if (err.includes('waiting')) resolve();
          });
          waiter.once('exit', (code) => reject(new Error(`a waiting run exited ${code}: ${err}`)));
        }),
      );
    }
    await Promise.all(waiting);
    return waiters.map((w) => memoryOf(w.pid!));
  } finally {
    for (const w of waiters) w.kill('SIGTERM');
    holder.kill('SIGTERM');
  }
}

export const startup: Scenario = {
  name: 'startup',
  title: '8. CLI start-up (a cron line)',
  async run(ctx) {
    const reps = ctx.quick ? 3 : 10;
    // Measure the build `npm install` leaves, made current first.
    const build = spawnSync(process.execPath, [path.join(ROOT, 'build/cli.ts')], { encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`build:cli failed: ${build.stderr}`);
    const dir = benchDir();
    try {
      const env: Env = {
        ...(process.env as Env),
        SEMAFORO_HOME: dir,
        SEMAFORO_DB: path.join(dir, 'queue.db'),
      };
      const cases: Record<string, string[]> = {
        node: ['-e', '0'],
        version: [BIN, '--version'],
        enqueue: [BIN, 'enqueue', '--', 'true'],
        run: [BIN, 'run', '--', 'true'],
      };
      timed(cases.enqueue!, env); // create the file: every timed call opens an existing queue
      const samples: Record<string, number[]> = {};
      for (let r = 0; r < ctx.rounds; r++) {
        ctx.log(`startup: round ${r + 1}/${ctx.rounds}`);
        for (let i = 0; i < reps; i++)
          for (const [name, args] of Object.entries(cases)) (samples[name] ??= []).push(timed(args, env));
      }
      const waiting: Memory[] = [];
      const idle: Memory[] = [];
      /** the summed PSS of twenty waiting at once, per round */
      const twenty: number[] = [];
      for (let r = 0; r < ctx.rounds; r++) {
        waiting.push(...(await waitingRunsMemory(env, 1)));
        twenty.push((await waitingRunsMemory(env, 20)).reduce((sum, m) => sum + m.pss, 0));
        idle.push(await idleNodeMemory());
      }
      const mb = (metric: string, list: number[], goal?: (row: Row) => Goal) =>
        withValues(metric, 'MB', 'lower', { semaforo: median(list) }, { semaforo: list }, goal);
      const under =
        (mb: number, text: string) =>
        (r: Row): Goal => ({
          text,
          met: r.values.semaforo == null ? null : r.values.semaforo < mb,
        });
      const base = median(samples.node!);
      const row = (metric: string, name: string, goal?: (row: Row) => Goal) =>
        withValues(
          metric,
          'ms',
          'lower',
          { semaforo: median(samples[name]!) },
          { semaforo: samples[name]! },
          goal,
        );
      return {
        name: this.name,
        title: this.title,
        setup: { repsPerRound: reps, rounds: ctx.rounds },
        rows: [
          row('`node -e 0` (the yardstick)', 'node'),
          row('`semaforo --version`', 'version', withinOf(base, 2.5, 1.5)),
          row('`semaforo enqueue -- true`', 'enqueue', withinOf(base, 2.5, 1.5)),
          row('`semaforo run -- true`, end to end', 'run', withinOf(base, 2.5, 1.5)),
          mb(
            'RSS of a `run` waiting its turn',
            waiting.map((m) => m.rss),
            under(40, "< 40 MB (issue 25's figure; below an idle node's RSS, so out of reach)"),
          ),
          mb(
            '  of which its own (RssAnon)',
            waiting.map((m) => m.anon),
            under(40, '< 40 MB (what each more waiting run adds)'),
          ),
          mb(
            '  its share of memory (PSS)',
            waiting.map((m) => m.pss),
            under(40, '< 40 MB (the judged figure: own pages + its part of shared ones)'),
          ),
          mb('PSS of twenty `run`s waiting at once, summed', twenty, under(800, '< 800 MB (20 x 40)')),
          mb(
            'RSS of an idle `node -e` (the floor)',
            idle.map((m) => m.rss),
          ),
          mb(
            '  of which its own (RssAnon)',
            idle.map((m) => m.anon),
          ),
          mb(
            '  its share of memory (PSS)',
            idle.map((m) => m.pss),
          ),
        ],
        checks: [],
        notes: [
          'Wall time of a fresh process through bin/semaforo.js on the current build (dist/cli), median of ' +
            `${reps * ctx.rounds} calls interleaved with as many \`node -e 0\`; the queue file exists. ` +
            'Memory is read from /proc while the run waits for its group: VmRSS counts the pages of the node ' +
            'binary and SQLite it shares with every other Node process; RssAnon is what each waiting run adds; ' +
            'PSS (smaps_rollup) splits each shared page among the processes mapping it, so twenty PSS add up ' +
            'to what twenty take together.',
        ],
      };
    } finally {
      removeDir(dir);
    }
  },
};
