/**
 * A schedule in plain words, its newest runs' outcomes as badges with words, and a link to the
 * Tasks screen filtered to its tasks (the `schedule` filter), against a spawned `semaforo serve`
 * whose worker runs them.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { apiCall, go, screenshot, waitForText } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

const row = (page: Page, name: string) => page.locator(`[data-schedule="${name}"]`);

describe.skipIf(!hasChromium)("a schedule's words, recent runs and tasks", () => {
  const open = dashboardSession();

  it('describes the cron, shows the last runs by status word, and links to its tasks', async () => {
    const { page, server } = await open();
    // Fails every time: node exits 3.
    await apiCall(server, 'createSchedule', {
      name: 'weekday-report',
      cron: '0 9 * * 1-5',
      task: {
        kind: 'shell',
        maxAttempts: 1,
        payload: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
      },
    });
    await apiCall(server, 'createSchedule', {
      name: 'ticker',
      cron: '*/5 * * * *',
      task: { kind: 'sleep', payload: { ms: 1 } },
    });
    await go(page, 'Schedules');
    const report = row(page, 'weekday-report');
    await report.getByText('at 09:00, Monday to Friday').waitFor();
    await report.getByText('0 9 * * 1-5').waitFor();
    await row(page, 'ticker').getByText('every 5 minutes').waitFor();
    await report.getByTestId('recent-runs').getByText('none yet').waitFor();

    for (let i = 0; i < 3; i++) await apiCall(server, 'runScheduleNow', { name: 'weekday-report' });
    await apiCall(server, 'runScheduleNow', { name: 'ticker' });
    const runs = report.getByRole('list', { name: 'Newest tasks of weekday-report' });
    await expect.poll(() => runs.locator('[data-status="failed"]').count(), { timeout: 20_000 }).toBe(3);
    // The word, not the colour alone.
    expect(await runs.locator('.status-word').allInnerTexts()).toEqual(['failed', 'failed', 'failed']);
    await row(page, 'ticker')
      .getByRole('list', { name: 'Newest tasks of ticker' })
      .locator('[data-status="done"]')
      .waitFor({ timeout: 20_000 });
    await screenshot(page, 'schedule-runs');

    // opened in a new tab, the link keeps its filter (the address carries it, then is #/tasks)
    const href = await report.getByRole('link', { name: 'all 3 tasks →' }).getAttribute('href');
    const tab = await open.newPage({ cookies: await page.context().cookies() });
    await tab.goto(new URL(href!, page.url()).toString());
    await tab.getByRole('search', { name: 'Filter tasks' }).getByText('Schedule weekday-report').waitFor();
    await waitForText(tab.getByTestId('task-total'), '3 matches');
    expect(new URL(tab.url()).hash).toBe('#/tasks');

    await report.getByRole('link', { name: 'all 3 tasks →' }).click();
    await page.waitForFunction(() => document.title === 'Semaforo — Tasks');
    const filters = page.getByRole('search', { name: 'Filter tasks' });
    await filters.getByText('Schedule weekday-report').waitFor();
    await waitForText(page.getByTestId('task-total'), '3 matches');
    const grid = page.getByRole('grid', { name: 'Tasks' });
    expect(await grid.locator('[data-task-id]').count()).toBe(3);
    await screenshot(page, 'schedule-tasks');
    await filters.getByRole('button', { name: /Show tasks of every schedule/ }).click();
    await waitForText(page.getByTestId('task-total'), '4 tasks');
  });
});
