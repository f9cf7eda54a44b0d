/**
 * Every screen of the dashboard through axe-core (WCAG 2 A and AA rules), on a queue with
 * waiting, failed and done tasks, an adaptive group and a schedule that ran: no serious or
 * critical violation.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { NewTask } from '../../electron/core/store/task-store.ts';
import { apiCall, go } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

// read once; evaluated through the debugging protocol, which the dashboard's CSP does not cover
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WORKER = { id: 'w@host:1:x', pid: 1, host: 'host' };

const spec = (name: string, group: string): NewTask => ({
  kind: 'shell',
  name,
  group,
  priority: 5,
  maxAttempts: 1,
  payload: JSON.stringify({ command: 'curl', args: ['-fsS', 'https://api.example.com/x'] }),
  runAt: 0,
  timeout: null,
  unique: null,
});

/** A failed task, a done one, waiting ones, and a vendor group that learned its limit. */
function busyQueue(db: string): void {
  const store = new SqliteTaskStore(db);
  store.updateGroup('vendor', { adaptive: true, concurrency: 4 });
  store.updateGroup('backups', { concurrency: 1, rate: { limit: 10, periodMs: 60_000 } });
  store.enqueue([spec('report', 'vendor'), spec('export', 'vendor'), spec('nightly', 'backups')], 0);
  const now = Date.now() - 60_000;
  const claimed = store.tick({
    now: () => now,
    worker: WORKER,
    leaseMs: 30_000,
    finishes: [],
    claimMax: 2,
  }).claimed;
  const [a, b] = claimed;
  const base = (c: typeof a) => ({ taskId: c!.task.id, attempt: c!.task.attempts, historyId: c!.historyId });
  store.tick({
    now: () => now + 100,
    worker: WORKER,
    leaseMs: 30_000,
    claimMax: 0,
    finishes: [
      {
        ...base(a),
        status: 'failed',
        outcome: 'failed',
        error: 'exited with code 7: curl: (7) Failed to connect',
        output: null,
      },
      { ...base(b), status: 'done', result: null, output: 'ok' },
    ],
  });
  store.close();
}

/** The serious and critical violations on the page, and how many rules passed (so axe ran). */
async function audit(page: Page): Promise<{ bad: string[]; passed: number }> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(o: object): Promise<{
            violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
            passes: unknown[];
          }>;
        };
      }
    ).axe;
    const r = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
    const bad = r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id} (${v.impact}): ${v.help}: ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`,
      );
    return { bad, passed: r.passes.length };
  });
}

describe.skipIf(!hasChromium)('the dashboard under axe', () => {
  const open = dashboardSession();

  it('has no serious or critical WCAG 2 AA violation on any screen, light or dark', async () => {
    const { page, server } = await open({ before: async (db) => busyQueue(db) });
    // A schedule with a run, so its row's words, recent runs and link are audited too.
    await apiCall(server, 'createSchedule', {
      name: 'weekday-report',
      cron: '0 9 * * 1-5',
      task: { kind: 'sleep', payload: { ms: 1 } },
    });
    await apiCall(server, 'runScheduleNow', { name: 'weekday-report' });
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const screen of [
        'Overview',
        'Tasks',
        'Failures',
        'Groups',
        'Workers',
        'Schedules',
        'Settings',
      ] as const) {
        await go(page, screen);
        // audit the screen with its data, not its loading state
        await page
          .getByText(/^Loading .*…$/)
          .first()
          .waitFor({ state: 'hidden' });
        const { bad, passed } = await audit(page);
        expect(passed, `${scheme} ${screen}: rules axe checked`).toBeGreaterThan(10);
        for (const v of bad) found.push(`${scheme} ${screen}: ${v}`);
      }
    }
    expect(found).toEqual([]);
  });
});
