/**
 * 6. Limits under load: 20 groups, each with concurrency 2 and a rate limit, one file, drained by
 * one and by two worker processes. Throughput, and the proof from the tasks' own start and end
 * times (and the claim times in the history) that no limit was exceeded and no task ran twice.
 */
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { semaforoFile } from '../fixtures.ts';
import { PROBE_KIND } from '../peers/probe.ts';
import { alternate, makeRow, pick, type Check, type Scenario } from '../scenario.ts';
import { benchDir, copyDb, removeDir } from '../tmp.ts';
import { num, runTrial } from '../trial.ts';

const GROUPS = Array.from({ length: 20 }, (_, i) => `g${String(i).padStart(2, '0')}`);
const CONCURRENCY = 2;
const PERIOD_MS = 1000;

type Run = [id: number, group: string, start: number, end: number];

/** Most tasks of one group running at the same moment, from handler start/end times. */
function maxOverlap(runs: readonly Run[]): number {
  const events: [number, number][] = [];
  for (const r of runs) events.push([r[2], 1], [r[3], -1]);
  // At equal times count the end first: sub-microsecond ties between processes mean nothing.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let max = 0;
  for (const [, d] of events) max = Math.max(max, (cur += d));
  return max;
}

/** Most starts inside any window (t - period, t], from sorted claim times. */
function maxInWindow(starts: readonly number[], period: number): number {
  let max = 0;
  let lo = 0;
  for (let hi = 0; hi < starts.length; hi++) {
    // Every start at the same ms as `hi` belongs to the window ending at starts[hi].
    let top = hi;
    while (top + 1 < starts.length && starts[top + 1] === starts[hi]) top++;
    while (starts[lo]! <= starts[hi]! - period) lo++;
    max = Math.max(max, top - lo + 1);
  }
  return max;
}

interface Verdict {
  maxConcurrency: number;
  maxStartsInWindow: number;
  ranTwice: number;
  notDone: number;
}

function verify(file: string, runs: readonly Run[], total: number): Verdict {
  const byGroup = new Map<string, Run[]>();
  for (const r of runs) {
    const list = byGroup.get(r[1]) ?? [];
    list.push(r);
    byGroup.set(r[1], list);
  }
  let maxConcurrency = 0;
  for (const list of byGroup.values()) maxConcurrency = Math.max(maxConcurrency, maxOverlap(list));
  const ids = new Set(runs.map((r) => r[0]));
  const db = new Database(file, { readonly: true });
  const starts = db
    .prepare<[], { g: string; s: number }>(
      `SELECT t.group_name AS g, h.started_at AS s FROM history h JOIN tasks t ON t.id = h.task_id
       WHERE h.type = 'attempt' ORDER BY h.started_at`,
    )
    .all();
  const notDone = db
    .prepare<[], { n: number }>(`SELECT count(*) AS n FROM tasks WHERE status != 'done' OR attempts != 1`)
    .get()!.n;
  db.close();
  const startsByGroup = new Map<string, number[]>();
  for (const r of starts) {
    const list = startsByGroup.get(r.g) ?? [];
    list.push(r.s);
    startsByGroup.set(r.g, list);
  }
  let maxStartsInWindow = 0;
  for (const list of startsByGroup.values()) {
    maxStartsInWindow = Math.max(maxStartsInWindow, maxInWindow(list, PERIOD_MS));
  }
  return {
    maxConcurrency,
    maxStartsInWindow,
    ranTwice: runs.length - ids.size + Math.max(0, starts.length - total),
    notDone: notDone + (total - ids.size),
  };
}

export const limits: Scenario = {
  name: 'limits',
  title: '6. Limits under load',
  async run(ctx) {
    const total = ctx.quick ? 5000 : 50_000;
    const rateLimit = ctx.quick ? 100 : 500;
    const perGroup = total / GROUPS.length;
    // With a sliding window, the best case starts `rateLimit` per group at once, then as many
    // again every period: the last batch can start (windows - 1) periods in.
    const boundMs = (Math.ceil(perGroup / rateLimit) - 1) * PERIOD_MS;
    const dir = benchDir();
    try {
      ctx.log(`limits: preparing ${total} tasks in ${GROUPS.length} groups`);
      const template = await semaforoFile(dir, 'limits.db', {
        ready: total,
        groups: GROUPS,
        groupLimits: { concurrency: CONCURRENCY, rate: { limit: rateLimit, periodMs: PERIOD_MS } },
        spec: { kind: PROBE_KIND, payload: {} },
      });
      const verdicts: Record<string, Verdict[]> = { one: [], two: [] };
      const variant = (procs: number, key: 'one' | 'two') => async () => {
        const d = benchDir();
        try {
          const file = copyDb(template, d, 'limits.db');
          const outs = Array.from({ length: procs }, (_, i) => path.join(d, `runs-${i}.json`));
          const res = await Promise.all(
            outs.map((out) => runTrial('semaforo.limitsWorker', { file, total, out })),
          );
          const runs = outs.flatMap((o) => JSON.parse(fs.readFileSync(o, 'utf8')) as Run[]);
          verdicts[key]!.push(verify(file, runs, total));
          const start = Math.min(...res.map((r) => num(r, 'startedAt')));
          const end = Math.max(...res.map((r) => num(r, 'endedAt')));
          const ms = end - start;
          return { rate: total / (ms / 1000), ofBound: boundMs > 0 ? (100 * boundMs) / ms : 100 };
        } finally {
          removeDir(d);
        }
      };
      const one = await alternate(ctx, 'limits, 1 worker process', { semaforo: variant(1, 'one') });
      const two = await alternate(ctx, 'limits, 2 worker processes', { semaforo: variant(2, 'two') });
      const checks: Check[] = [];
      for (const [key, label] of [
        ['one', '1 process'],
        ['two', '2 processes'],
      ] as const) {
        const v = verdicts[key]!;
        const conc = Math.max(...v.map((x) => x.maxConcurrency));
        const win = Math.max(...v.map((x) => x.maxStartsInWindow));
        const twice = v.reduce((s, x) => s + x.ranTwice, 0);
        const notDone = v.reduce((s, x) => s + x.notDone, 0);
        checks.push(
          {
            what: `${label}: group concurrency never above ${CONCURRENCY}`,
            pass: conc <= CONCURRENCY,
            detail: `most running at once in one group: ${conc} (all ${v.length} rounds)`,
          },
          {
            what: `${label}: never more than ${rateLimit} starts per group in any ${PERIOD_MS} ms`,
            pass: win <= rateLimit,
            detail: `most starts in one window: ${win}`,
          },
          {
            what: `${label}: every task ran exactly once and is done`,
            pass: twice === 0 && notDone === 0,
            detail: `ran twice: ${twice}, not done or attempts != 1: ${notDone}`,
          },
        );
      }
      return {
        name: this.name,
        title: this.title,
        setup: {
          tasks: total,
          groups: GROUPS.length,
          groupConcurrency: CONCURRENCY,
          rate: `${rateLimit} per ${PERIOD_MS} ms per group`,
          rateBoundMs: boundMs,
        },
        rows: [
          makeRow('throughput, 1 worker process', 'tasks/s', 'higher', pick(one, 'rate')),
          makeRow('  share of the rate-limit bound', '%', 'higher', pick(one, 'ofBound')),
          makeRow('throughput, 2 worker processes', 'tasks/s', 'higher', pick(two, 'rate')),
          makeRow('  share of the rate-limit bound', '%', 'higher', pick(two, 'ofBound')),
        ],
        checks,
        notes: [
          `The rate limit binds by design: ${perGroup} tasks per group at ${rateLimit}/s cannot finish ` +
            `in less than ~${boundMs} ms, so the best possible throughput is ~${Math.round(total / (boundMs / 1000)).toLocaleString('en-US')} tasks/s. ` +
            "Concurrency is checked on the handlers' own start/end times (each inside the slot the engine " +
            'holds), the rate on the claim times recorded in the history. No peer has per-group limits (plainjob none; BullMQ only in its Pro version), so none is compared.',
        ],
      };
    } finally {
      removeDir(dir);
    }
  },
};
