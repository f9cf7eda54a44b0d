/** The Groups screen's per-group stats: the oldest waiting task's age, and the hour's run times. */
import fs from 'node:fs';
import { describe, it } from 'vitest';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import { go, screenshot } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

const WORKER = { id: 'w@host:1:x', pid: 1, host: 'host' };
const MIN = 60_000;

const spec = (name: string, group: string, runAt: number) => ({
  kind: 'sleep',
  name,
  group,
  priority: 5,
  maxAttempts: 1,
  payload: '{"ms":0}',
  runAt,
  timeout: null,
  unique: null,
});

/**
 * backups: 20 tasks that ran 0.2 s to 4 s (avg 2.1 s) within the hour, one finished 2 h ago
 * (outside it), and a task waiting 4 min in the paused group; vendor: an empty group.
 */
function groupQueue(db: string): void {
  const store = new SqliteTaskStore(db);
  const now = Date.now();
  const ran = (name: string, start: number, ms: number) => {
    store.enqueue([spec(name, 'backups', start)], start);
    const [c] = store.tick({
      now: () => start,
      worker: WORKER,
      leaseMs: 30_000,
      finishes: [],
      claimMax: 1,
    }).claimed;
    const finish = { taskId: c!.task.id, attempt: 1, historyId: c!.historyId, status: 'done' as const };
    store.tick({
      now: () => start + ms,
      worker: WORKER,
      leaseMs: 30_000,
      finishes: [{ ...finish, result: null, output: null }],
      claimMax: 0,
    });
  };
  ran('last night', now - 120 * MIN, 60_000);
  for (let i = 1; i <= 20; i++) ran(`dump ${i}`, now - 40 * MIN + i * MIN, i * 200);
  store.enqueue([spec('dump late', 'backups', now - 4 * MIN)], now - 4 * MIN);
  store.updateGroup('backups', { paused: true });
  store.updateGroup('vendor', { concurrency: 2 });
  store.close();
}

describe.skipIf(!hasChromium)('per-group stats on the Groups screen', () => {
  const open = dashboardSession();

  it("shows each group's oldest waiting age and the hour's average and p95, and follows a drain", async () => {
    const { page } = await open({ before: async (db) => groupQueue(db) });
    await go(page, 'Groups');
    const backups = page.getByLabel('Stats of group backups');
    await backups
      .getByText(/^Oldest waiting 4 min( \d+ s)? · last hour: 20 finished, avg 2\.1 s, p95 4\.0 s$/)
      .waitFor();
    await page
      .getByLabel('Stats of group vendor')
      .getByText('Nothing waiting · nothing finished in the last hour')
      .waitFor();
    await screenshot(page, 'groups-stats');

    // resumed, serve's worker runs the waiting task: nothing waits and it counts in the hour
    await page.getByRole('region', { name: 'backups' }).getByRole('button', { name: 'Resume group' }).click();
    await backups.getByText(/^Nothing waiting · last hour: 21 finished, avg/).waitFor();
  });
});
