/**
 * 7. Responsiveness of the process hosting the engine (in the desktop app: Electron's main
 * process, which better-sqlite3 calls block): event-loop delay while draining at full speed,
 * alone and with the dashboard refreshing against 100,000 tasks; and the dashboard's own list
 * and stats queries timed on that file.
 */
import { semaforoFile } from '../fixtures.ts';
import { alternate, below, makeRow, pick, type Row, type Scenario } from '../scenario.ts';
import { benchDir, removeDir, withCopy } from '../tmp.ts';
import { runTrial } from '../trial.ts';

const QUERIES: [key: string, label: string][] = [
  ['listFirstPage', 'list: first page of 100, newest first (with total)'],
  ['listPending', 'list: pending, first page'],
  ['listDoneByFinished', 'list: done, by finish time'],
  ['listFailedInGroup', 'list: failed in one group'],
  ['listSearch', 'list: name search'],
  ['listDeepPage', 'list: page at offset 50,000'],
  ['stats', 'stats (counts, groups, 5 recent failures)'],
  ['getTask', 'one task with its history'],
];

export const responsiveness: Scenario = {
  name: 'responsiveness',
  title: '7. Responsiveness',
  async run(ctx) {
    const drainN = ctx.quick ? 5000 : 50_000;
    const big = ctx.quick ? 20_000 : 100_000;
    const dir = benchDir();
    try {
      ctx.log(`responsiveness: preparing a drain file and a ${big}-task file`);
      const drainFile = await semaforoFile(dir, 'drain.db', { ready: drainN });
      // Half history (done, failed, cancelled, delayed), half ready to run.
      const bigFile = await semaforoFile(dir, 'big.db', { background: big / 2, ready: big / 2 });
      const alone = await alternate(ctx, 'event-loop delay, draining', {
        semaforo: () =>
          withCopy(drainFile, (file) =>
            runTrial('semaforo.eventLoopDelay', { file, n: drainN, dashboard: false }),
          ),
      });
      const withUi = await alternate(ctx, 'event-loop delay, draining + dashboard', {
        semaforo: () =>
          withCopy(bigFile, (file) =>
            runTrial('semaforo.eventLoopDelay', { file, n: big / 2, dashboard: true }),
          ),
      });
      const q = await alternate(ctx, 'dashboard queries', {
        semaforo: () => withCopy(bigFile, (file) => runTrial('semaforo.queries', { file, runs: 20 })),
      });
      const k = (n: number) => n.toLocaleString('en-US');
      const rows: Row[] = [
        makeRow("ELD p99, idle (this machine's baseline)", 'ms', 'lower', pick(alone, 'idleP99')),
        makeRow(`ELD p99, draining ${k(drainN)}`, 'ms', 'lower', pick(alone, 'eldP99'), below(20, 'ms')),
        makeRow(`ELD max, draining ${k(drainN)}`, 'ms', 'lower', pick(alone, 'eldMax')),
        makeRow(
          `ELD p99, draining + dashboard, ${k(big)} tasks`,
          'ms',
          'lower',
          pick(withUi, 'eldP99'),
          below(20, 'ms'),
        ),
        makeRow(`ELD max, draining + dashboard`, 'ms', 'lower', pick(withUi, 'eldMax')),
        makeRow(
          `dashboard refresh (stats + page) while draining, median`,
          'ms',
          'lower',
          pick(withUi, 'refreshMedianMs'),
          below(50, 'ms'),
        ),
        makeRow(`dashboard refresh while draining, max`, 'ms', 'lower', pick(withUi, 'refreshMaxMs')),
        makeRow(`drain rate with the dashboard (info)`, 'tasks/s', 'higher', pick(withUi, 'rate')),
      ];
      for (const [key, label] of QUERIES) {
        rows.push(makeRow(`${label}, ${k(big)} tasks, median`, 'ms', 'lower', pick(q, key), below(50, 'ms')));
      }
      return {
        name: this.name,
        title: this.title,
        setup: { drainTasks: drainN, dashboardFileTasks: big, eldResolutionMs: 2, refreshEveryMs: 200 },
        rows,
        checks: [],
        notes: [
          'ELD: perf_hooks.monitorEventLoopDelay (2 ms resolution, subtracted) in the process that runs the engine. ' +
            "The dashboard refresh is stats(5) + listTasks({limit: 100}) every 200 ms (the UI's coalesced rate). " +
            'Query medians are over 20 runs each on an idle copy of the file. No peer has these queries.',
        ],
      };
    } finally {
      removeDir(dir);
    }
  },
};
