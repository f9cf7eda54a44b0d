/**
 * The Overview's charts over the last hour, day and week, in total and for one group: the range
 * switch and the group picker change what the charts and their summaries say, from one request
 * per range (the groups' series come with it).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../electron/core/store/open-store.ts';
import { A, claim, done, ended, finish, tasks } from '../conformance/shapes.ts';
import { screenshot } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

const MIN = 60_000;
const HOUR = 60 * MIN;

/** backups: 3 done 10 min ago, 4 done 3 days ago; vendor: 5 done and 1 failed 5 h ago. */
async function week(db: string): Promise<void> {
  const store = await openStore(db);
  await store.updateSettings({ globalConcurrency: 10_000 });
  const now = Date.now();
  const ran = async (group: string, at: number, ok: number, failed = 0) => {
    await store.enqueue(tasks(ok + failed, { group, maxAttempts: 1 }, `${group}-`), at - 1000);
    const claimed = await claim(store, A, ok + failed, at - 500);
    expect(claimed).toHaveLength(ok + failed);
    await finish(
      store,
      A,
      at,
      ...claimed.map((c, i) => (i < ok ? done(c) : ended(c, 'failed', 'failed', { error: 'HTTP 500' }))),
    );
  };
  await ran('backups', now - 72 * HOUR, 4);
  await ran('vendor', now - 5 * HOUR, 5, 1);
  await ran('backups', now - 10 * MIN, 3);
  await store.close();
}

describe.skipIf(!hasChromium)('throughput charts over a day and a week, by group', () => {
  const open = dashboardSession();

  it('switches between 1 h, 24 h and 7 d, in total and for one group', async () => {
    const { page } = await open({ before: week });
    const ranges: string[] = [];
    page.on('request', (r) => {
      const text = r.url() + (r.postData() ?? '');
      if (!text.includes('throughputSeries')) return;
      for (const m of text.matchAll(/"range":"(\w+)"/g)) if (ranges.at(-1) !== m[1]) ranges.push(m[1]!);
    });
    const charts = page.getByRole('region', { name: 'Throughput and failures' });
    await charts.getByText('3 finished in the last hour').waitFor();
    ranges.length = 0; // the first hour's, made while the page opened
    const range = charts.getByRole('group', { name: 'Time range' });
    expect(await range.getByRole('button', { name: '1 h' }).getAttribute('aria-pressed')).toBe('true');

    await range.getByRole('button', { name: '24 h' }).click();
    await charts.getByText('9 finished in the last 24 hours').waitFor();
    await charts.getByText('1 failed (11%)').waitFor();
    await charts.getByText('Throughput (tasks finished per hour)').waitFor();

    await range.getByRole('button', { name: '7 d' }).click();
    await charts.getByText('13 finished in the last 7 days').waitFor();
    expect(await range.getByRole('button', { name: '7 d' }).getAttribute('aria-pressed')).toBe('true');

    // The groups that finished any in the week, the most finished first.
    const picker = charts.getByRole('combobox', { name: 'Group' });
    expect(await picker.locator('option').allInnerTexts()).toEqual(['All groups', 'backups', 'vendor']);
    await picker.selectOption('vendor');
    await charts.getByText('6 finished in vendor in the last 7 days').waitFor();
    await charts.getByText('1 failed (17%)').waitFor();
    await charts.getByText('Failure rate in vendor (% of finished tasks)').waitFor();
    await screenshot(page, 'charts-week-vendor');

    // The group stays chosen over another range, also where it finished nothing.
    await range.getByRole('button', { name: '1 h' }).click();
    await charts.getByText('nothing finished in vendor in the last hour').waitFor();
    await charts.getByText('0 finished in vendor in the last hour').waitFor();
    await picker.selectOption('');
    await charts.getByText('3 finished in the last hour').waitFor();
    // A request per range shown; the group picker asked nothing (its series came with the range's).
    expect(ranges).toEqual(['24h', '7d', '1h']);
  });
});
