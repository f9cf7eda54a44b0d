/**
 * Bulk actions act on what matches, not on what is loaded: 3,000 failed tasks, of which the Tasks
 * list has only its first rows on screen, are all retried by "Select all 3,000 matching" (or Ctrl+A); on the
 * Failures screen, which loads the newest 1,000, a failure group's "Retry all 1,500"
 * retries every task with that error and no other.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Stats } from '../../shared/domain.ts';
import { openStore } from '../../electron/core/store/open-store.ts';
import { A, claim, ended, finish, tasks } from '../conformance/shapes.ts';
import { apiCall, go, screenshot, waitForText } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
/** A kind no worker has a handler for: retried tasks stay pending, as `serve` runs a worker. */
const KIND = 'vendor-sync';
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

/** `n` failed tasks per error, written straight to the queue file (thousands in a second). */
async function seedFailed(db: string, byError: Record<string, number>): Promise<void> {
  const store = await openStore(db);
  await store.updateSettings({ globalConcurrency: 10_000 });
  let now = Date.now() - 60_000;
  for (const [error, n] of Object.entries(byError)) {
    await store.enqueue(
      tasks(n, { kind: KIND, maxAttempts: 1 }, error.startsWith('"curl') ? 'sync-order-' : 'backup-'),
      now,
    );
    const claimed = await claim(store, A, n, ++now);
    await finish(store, A, ++now, ...claimed.map((c) => ended(c, 'failed', 'failed', { error })));
  }
  await store.close();
}

async function confirm(page: Page, question: RegExp, button: RegExp): Promise<void> {
  const dialog = page.getByRole('dialog', { name: question });
  await dialog.getByRole('button', { name: button }).click();
  await dialog.waitFor({ state: 'detached' });
}

const CURL =
  '"curl http://127.0.0.1:1/x" exited with code 7: curl: (7) Failed to connect to 127.0.0.1 port 1';

describe.skipIf(!hasChromium)('acting on everything that matches', () => {
  const open = dashboardSession();

  it('retries all 3,000 matching failed tasks when only the first rows are loaded', async () => {
    const { page, server } = await open({ before: (db) => seedFailed(db, { [CURL]: 3000 }) });
    await go(page, 'Tasks');
    const filters = page.getByRole('search', { name: 'Filter tasks' });
    await filters.getByRole('checkbox', { name: /failed/ }).check();
    await waitForText(page.getByTestId('task-total'), '3,000 matches');
    const grid = page.getByRole('grid', { name: 'Tasks' });
    await grid.locator('[data-task-id]').first().waitFor();
    // One row ticked by hand: the bar offers all that match.
    await grid.focus();
    await page.keyboard.press(' ');
    const bar = page.getByRole('toolbar', { name: 'Selected tasks' });
    await waitForText(bar.locator('.bulk-count'), '1 task selected');
    expect(await grid.locator('[data-task-id]').count()).toBeLessThan(3000);
    await bar.getByRole('button', { name: 'Select all 3,000 matching' }).click();
    await waitForText(bar.locator('.bulk-count'), 'All 3,000 matching tasks selected');
    // Escape lets go of it; Ctrl+A takes all that match again, not only the rows loaded.
    await grid.focus();
    await page.keyboard.press('Escape');
    await bar.waitFor({ state: 'detached' });
    await page.keyboard.press('Control+a');
    await waitForText(bar.locator('.bulk-count'), 'All 3,000 matching tasks selected');
    // Rows loaded after it show as selected too.
    await page.keyboard.press('End');
    const last = grid.locator('[data-task-id]').last();
    await last.waitFor();
    expect(await last.getAttribute('aria-selected')).toBe('true');
    await screenshot(page, 'select-all-matching');
    // R in the list acts on what the bar says is selected, too; kept as is this time.
    await grid.focus();
    await page.keyboard.press('r');
    await confirm(page, /^Retry 3,000 tasks matching these filters\?$/, /^Keep as is$/);
    await bar.getByRole('button', { name: /Retry all/ }).click();
    await confirm(page, /^Retry 3,000 tasks matching these filters\?$/, /^Retry 3,000 tasks$/);
    await page.getByRole('status').getByText('3,000 tasks back in the queue').waitFor();
    const stats = await apiCall<Stats>(server, 'stats');
    expect(stats.counts).toMatchObject({ failed: 0, pending: 3000 });
    await page.getByText('No tasks match these filters').waitFor();
  });

  it('unticking a row while all match never selects it: the rows loaded, less it, and the bar says so', async () => {
    const { page, server } = await open({ before: (db) => seedFailed(db, { [CURL]: 300 }) });
    await go(page, 'Tasks');
    await page
      .getByRole('search', { name: 'Filter tasks' })
      .getByRole('checkbox', { name: /failed/ })
      .check();
    await waitForText(page.getByTestId('task-total'), '300 matches');
    const grid = page.getByRole('grid', { name: 'Tasks' });
    await grid.locator('[data-task-id]').first().waitFor();
    await grid.focus();
    await page.keyboard.press('Control+a');
    const bar = page.getByRole('toolbar', { name: 'Selected tasks' });
    await waitForText(bar.locator('.bulk-count'), 'All 300 matching tasks selected');
    // A row loaded after Ctrl+A shows as selected; Space unticks it. Space acts on the active row,
    // which End names once its page has loaded (rows rendered on the way there are not it).
    await page.keyboard.press('End');
    await expect
      .poll(() => grid.getAttribute('aria-activedescendant'), { timeout: 10_000 })
      .toMatch(/^task-row-\d+$/);
    const keep = Number((await grid.getAttribute('aria-activedescendant'))!.slice('task-row-'.length));
    const kept = grid.locator(`[data-task-id="${keep}"]`);
    await expect.poll(() => kept.getAttribute('aria-selected'), { timeout: 10_000 }).toBe('true');
    await page.keyboard.press(' ');
    await expect.poll(() => kept.getAttribute('aria-selected'), { timeout: 10_000 }).toBe('false');
    await bar.getByTestId('bulk-narrowed').waitFor();
    const said = await bar.locator('.bulk-count').textContent();
    const n = Number(/^([\d,]+) tasks selected$/.exec(said ?? '')![1]!.replace(/,/g, ''));
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(300);
    await screenshot(page, 'select-all-matching-narrowed');
    // Delete acts on those, never on the unticked row.
    await bar.getByRole('button', { name: /Delete selected/ }).click();
    const dialog = page.getByRole('dialog', {
      name: new RegExp(`^Delete ${n} failed tasks and their history`),
    });
    await dialog.getByRole('button', { name: `Delete ${n} tasks` }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await apiCall<Stats>(server, 'stats')).counts.failed, { timeout: 10_000 })
      .toBe(300 - n);
    expect(await apiCall<{ id: number } | null>(server, 'getTask', { id: keep })).toMatchObject({ id: keep });
  });

  it('a new search lets go of all matching: nothing hidden stays selected', async () => {
    const { page, server } = await open({ before: (db) => seedFailed(db, { [CURL]: 40 }) });
    await go(page, 'Tasks');
    await waitForText(page.getByTestId('task-total'), '40 tasks');
    const grid = page.getByRole('grid', { name: 'Tasks' });
    await grid.locator('[data-task-id]').first().waitFor();
    await grid.focus();
    await page.keyboard.press('Control+a');
    const bar = page.getByRole('toolbar', { name: 'Selected tasks' });
    await waitForText(bar.locator('.bulk-count'), 'All 40 matching tasks selected');
    await page.getByRole('searchbox', { name: 'Search tasks' }).fill('sync-order-39');
    await waitForText(page.getByTestId('task-total'), '1 match');
    await bar.waitFor({ state: 'detached' });
    // Delete in the list acts on the row in view only, as nothing is selected.
    await grid.focus();
    await page.keyboard.press('Delete');
    await page.getByRole('dialog', { name: /^Delete task/ }).waitFor();
    expect((await apiCall<Stats>(server, 'stats')).counts.failed).toBe(40);
  });

  it("retries every task of one failure group past the 1,000 loaded, and leaves the other group's", async () => {
    const pgDump = 'pg_dump: error: connection to server failed';
    const { page, server } = await open({ before: (db) => seedFailed(db, { [CURL]: 1500, [pgDump]: 20 }) });
    await go(page, 'Failures');
    const group = page.getByRole('region', { name: /^vendor-sync exit 7 · curl: \(7\) Failed to connect/ });
    // The newest 1,000 are loaded: 20 pg_dump failures and 980 of the 1,500 curl ones.
    await group.getByText('980 of 1,500 tasks shown').waitFor();
    const other = page.getByRole('region', { name: `vendor-sync ${pgDump}` });
    await other.getByRole('button', { name: 'Retry these 20' }).waitFor();
    await group.getByRole('button', { name: 'Retry all 1,500' }).click();
    await confirm(
      page,
      /^Retry 1,500 tasks of kind vendor-sync that failed with “exit 7 · curl/,
      /^Retry 1,500 tasks$/,
    );
    await page.getByRole('status').getByText('1,500 tasks back in the queue').waitFor();
    const stats = await apiCall<Stats>(server, 'stats');
    expect(stats.counts).toMatchObject({ failed: 20, pending: 1500 });
  });
});
