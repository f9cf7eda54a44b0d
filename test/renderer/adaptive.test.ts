/**
 * An adaptive group on the dashboard's Groups screen: what it learned, the vendor's words, its
 * history, and the reset; the adaptive switch in the limits form.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { ClaimedTask, Finish } from '../../electron/core/store/task-store.ts';
import type { GroupInfo } from '../../shared/domain.ts';
import { semaforoJson } from './cli-processes.ts';
import { go, screenshot } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

const WORKER = { id: 'w@host:1:x', pid: 1, host: 'host' };

const throttled = (c: ClaimedTask, at: number): Finish => ({
  taskId: c.task.id,
  attempt: c.task.attempts,
  historyId: c.historyId,
  status: 'retrying',
  outcome: 'retry-after',
  error: 'GET api.vendor.test/items -> 429; waiting 1 s (Retry-After: 1)',
  output: null,
  // far off, so that serve's own worker does not run them and the group learns nothing more
  runAt: at + 3_600_000,
  blockGroupUntil: at,
});

/** A vendor group that was told 50/s and cut twice by 429s. */
function learnedQueue(db: string): void {
  const store = new SqliteTaskStore(db);
  store.updateGroup('vendor', { adaptive: true, concurrency: 4 });
  store.enqueue(
    [1, 2].map((i) => ({
      kind: 'sleep',
      name: `call ${i}`,
      group: 'vendor',
      priority: 5,
      maxAttempts: 3,
      payload: '{"ms":1}',
      runAt: 0,
      timeout: null,
      unique: null,
    })),
    0,
  );
  const start = Date.now() - 5000;
  for (const at of [start, start + 2500]) {
    const [c] = store.tick({
      now: () => at,
      worker: WORKER,
      leaseMs: 30_000,
      finishes: [],
      claimMax: 1,
    }).claimed;
    store.tick({
      now: () => at + 10,
      worker: WORKER,
      leaseMs: 30_000,
      finishes: [throttled(c!, at + 10)],
      claimMax: 0,
    });
  }
  store.close();
}

describe.skipIf(!hasChromium)('an adaptive group on the dashboard', () => {
  const open = dashboardSession();

  it('shows what it learned and the last throttle, forgets on request, and switches adaptive on', async () => {
    const { db, page } = await open({ before: async (db) => learnedQueue(db) });
    await go(page, 'Groups');
    const learned = page.getByLabel('What group vendor learned');
    await learned.getByText('Learned: 1 of 4 running, 25/s of 50/s').waitFor();
    await learned.getByText(/Last throttled .*: GET api\.vendor\.test\/items -> 429/).waitFor();
    await learned.getByRole('img', { name: /Learned rate of group vendor over time/ }).waitFor();
    await screenshot(page, 'groups-adaptive');

    await learned.getByRole('button', { name: 'Forget what it learned' }).click();
    await page
      .getByRole('status')
      .getByText('Group vendor forgot what it learned: back at its caps')
      .waitFor();
    await learned.getByText('Learned: at its caps').waitFor();
    expect(await learned.getByRole('button', { name: 'Forget what it learned' }).count()).toBe(0);

    const form = page.getByRole('form', { name: 'New group' });
    await form.getByLabel('Group name').fill('partner');
    await form.getByLabel(/Learn the vendor's limit/).check();
    await form.getByRole('button', { name: 'Add group' }).click();
    await page.getByLabel('What group partner learned').getByText('Learned: at its caps').waitFor();
    const groups = await semaforoJson<GroupInfo[]>(db, ['group', 'list']);
    expect(groups.find((g) => g.name === 'partner')).toMatchObject({
      rate: { limit: 50, periodMs: 1000 },
      adaptive: { rate: 50, lastThrottleAt: null },
    });
  });
});
