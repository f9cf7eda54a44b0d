/**
 * Semaforo vs its peers (plainjob, BullMQ; on PostgreSQL graphile-worker and pg-boss), side by side
 * on this machine, in one invocation.
 *
 *   node test/bench/run.ts [--rounds N] [--quick] [--scenario NAME[,NAME]] [--json] [--md FILE]
 *                          [--cpu-prof]
 *
 * Scenarios: enqueue, drain, latency, scale, memory, limits, responsiveness, startup, postgres (or
 * 1-9). Each trial runs in a fresh child process; systems alternate within every round; the table
 * shows medians and Semaforo/peer ratios. Progress goes to stderr, the report to stdout.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { bullmqUnavailable, findRedisServer, startRedis, type RedisServer } from './peers/redis.ts';
import { markdownReport, textReport, type Machine, type Report } from './report.ts';
import type { Context, Scenario, ScenarioResult } from './scenario.ts';
import { drain } from './scenarios/drain.ts';
import { enqueue } from './scenarios/enqueue.ts';
import { latency } from './scenarios/latency.ts';
import { limits } from './scenarios/limits.ts';
import { memory } from './scenarios/memory.ts';
import { responsiveness } from './scenarios/responsiveness.ts';
import { scale } from './scenarios/scale.ts';
import { startup } from './scenarios/startup.ts';
import { postgres } from './scenarios/postgres.ts';
import { pgUnavailable } from './peers/pg-common.ts';
import { cleanupDirs } from './tmp.ts';
import { addChildExecArgv } from './trial.ts';

const SCENARIOS: Scenario[] = [
  enqueue,
  drain,
  latency,
  scale,
  memory,
  limits,
  responsiveness,
  startup,
  postgres,
];
/** The scenarios that have a BullMQ equivalent. */
const WITH_BULLMQ = new Set(['enqueue', 'drain', 'latency']);

const USAGE = `usage: node test/bench/run.ts [options]
  --rounds N        rounds per measurement (default 3)
  --quick           small sizes, for a smoke run
  --scenario NAME   run only these (comma-separated): ${SCENARIOS.map((s, i) => `${i + 1}/${s.name}`).join(', ')}
  --json            print one JSON object with every figure instead of the table
  --md FILE         also write the table as Markdown to FILE
  --cpu-prof        write a V8 CPU profile of every trial process (directory printed at the end)`;

function parse() {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      quick: { type: 'boolean', default: false },
      scenario: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      md: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number >= 1');
  const wanted = (values.scenario ?? []).flatMap((s) => s.split(',')).filter(Boolean);
  const selected = wanted.length
    ? wanted.map((w) => {
        const s = SCENARIOS.find((x, i) => x.name === w || String(i + 1) === w);
        if (!s) throw new Error(`unknown scenario "${w}"; known: ${SCENARIOS.map((x) => x.name).join(', ')}`);
        return s;
      })
    : SCENARIOS;
  return { ...values, rounds, selected };
}

function machine(): Machine {
  const db = new Database(':memory:');
  const sqlite = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  db.close();
  let redis: string | null = null;
  const binary = findRedisServer();
  if (binary) {
    try {
      redis = /v=(\S+)/.exec(execFileSync(binary, ['--version'], { encoding: 'utf8' }))?.[1] ?? null;
    } catch {
      // unknown version: leave it out
    }
  }
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
    cores: os.cpus().length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.versions.node,
    sqlite,
    redis,
    tmpdir: os.tmpdir(),
  };
}

async function main(): Promise<void> {
  const opts = parse();
  const log = (m: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
  let profDir: string | null = null;
  if (opts['cpu-prof']) {
    profDir = fs.mkdtempSync(path.join(os.tmpdir(), 'semaforo-bench-prof-'));
    addChildExecArgv('--cpu-prof', `--cpu-prof-dir=${profDir}`);
  }
  const skipped: string[] = [];
  let redis: RedisServer | null = null;
  if (opts.selected.some((s) => WITH_BULLMQ.has(s.name))) {
    const why = bullmqUnavailable();
    if (why) {
      skipped.push(`BullMQ (${why})`);
      process.stderr.write(`skipped: BullMQ (${why})\n`);
    } else {
      redis = await startRedis();
      log(`redis-server on 127.0.0.1:${redis.port}`);
    }
  }
  let pgSkipped: string | null = null;
  if (opts.selected.includes(postgres)) {
    pgSkipped = await pgUnavailable();
    if (pgSkipped) {
      skipped.push(`the PostgreSQL section (${pgSkipped})`);
      process.stderr.write(`skipped: the PostgreSQL section (${pgSkipped})\n`);
      opts.selected = opts.selected.filter((s) => s !== postgres);
    }
  }
  const stopRedis = () => redis?.stop();
  // exit handlers (temp dirs, redis-server) do not run on a signal by themselves.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      cleanupDirs();
      process.exit(128 + (sig === 'SIGINT' ? 2 : 15));
    });
  }
  const ctx: Context = {
    rounds: opts.rounds,
    quick: opts.quick,
    redisPort: redis?.port ?? null,
    bullmqSkipped: skipped[0] ?? null,
    pgSkipped,
    log,
  };
  const started = Date.now();
  const results: ScenarioResult[] = [];
  try {
    for (const s of opts.selected) {
      const t = Date.now();
      log(`${s.title}`);
      results.push(await s.run(ctx));
      log(`${s.title}: ${((Date.now() - t) / 1000).toFixed(0)} s`);
    }
  } finally {
    await stopRedis();
    cleanupDirs();
  }
  log(`all done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const rep: Report = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: machine(),
    options: { rounds: opts.rounds, quick: opts.quick, scenarios: opts.selected.map((s) => s.name) },
    skipped,
    scenarios: results,
  };
  if (opts.md) fs.writeFileSync(opts.md, markdownReport(rep) + '\n');
  console.log(opts.json ? JSON.stringify(rep, null, 2) : textReport(rep));
  if (profDir) process.stderr.write(`CPU profiles of the trial processes: ${profDir}\n`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  cleanupDirs();
  process.exit(1);
});
