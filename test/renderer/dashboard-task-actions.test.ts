/**
 * Acting on tasks from the dashboard: Retry from Failures, and the Tasks list's filters, search
 * and bulk cancel, checked against what the CLI then lists.
 * Part of the dashboard's end-to-end suite: the built renderer in headless Chromium, talking
 * HTTP+SSE to a spawned `semaforo serve`, while other `semaforo` processes change the same file.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { enqueueMany, semaforo, semaforoJson } from './cli-processes.ts';
import { go, screenshot, waitForRows, waitForText } from './dashboard-page.ts';
import { confirmDialog, hasChromium, type ListedTask } from './dashboard-steps.ts';
import { dashboardSession } from './harness.ts';

describe.skipIf(!hasChromium)('dashboard in headless Chromium against semaforo serve', () => {
  const open = dashboardSession();

  it('lists a failed task in Failures; Retry sends it back to pending and it runs', async () => {
    const { db, page } = await open();
    const marker = path.join(path.dirname(db), 'ran-once');
    // Fails the first time (exit 2), succeeds once the marker exists.
    const script =
      "const fs=require('fs');const f=process.argv[1];" +
      "if(fs.existsSync(f)){console.log('second run: ok');process.exit(0)}" +
      "fs.writeFileSync(f,'');console.error('export failed');process.exit(2)";
    const r = await semaforo(db, [
      'enqueue',
      '--name',
      'flaky-export',
      '--max-attempts',
      '1',
      '--',
      process.execPath,
      '-e',
      script,
      marker,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const id = Number(r.stdout.trim());

    const rail = page.getByRole('navigation', { name: 'Screens' });
    await rail.getByLabel('1 failed').waitFor();
    await go(page, 'Failures');
    const group = page.getByRole('region', { name: /shell exit 2 · export failed/ });
    await group.getByRole('link', { name: /flaky-export/ }).waitFor();
    await screenshot(page, 'failures');

    // Pause first so "back to pending" can be seen before a worker takes it.
    expect((await semaforo(db, ['pause'])).code).toBe(0);
    await page.getByRole('img', { name: 'Queue: Paused' }).first().waitFor();
    await group.getByRole('button', { name: 'Retry', exact: true }).click();
    await confirmDialog(page, /Retry 1 failed shell task with “exit 2 · export failed”/, 'Retry task');
    await page.getByRole('status').getByText('1 task back in the queue').waitFor();
    await page.getByText('Nothing failed').waitFor();
    await rail.getByLabel('1 failed').waitFor({ state: 'detached' });

    await go(page, 'Tasks');
    const row = page.locator(`[role="row"][data-task-id="${id}"]`);
    await row.locator('[data-status="pending"]').waitFor();

    expect((await semaforo(db, ['resume'])).code).toBe(0);
    await row.locator('[data-status="done"]').waitFor({ timeout: 15_000 });
    await row.click();
    const panel = page.getByRole('complementary', { name: 'flaky-export' });
    // A retry gives fresh attempts: the history shows the failed one, the retry, and the run that worked.
    const entries = panel.locator('.history-entry');
    await entries.nth(2).waitFor();
    // Newest first.
    expect(await entries.locator('.history-head .status-word').allTextContents()).toEqual([
      'done',
      'retried by user',
      'failed',
    ]);
    await entries
      .nth(2)
      .getByText(/exited with code 2/)
      .waitFor();
    await entries.nth(0).locator('pre').getByText('second run: ok').waitFor();
    // An old attempt's error still finds the task.
    await page.getByRole('searchbox', { name: 'Search tasks' }).fill('export FAILED');
    await waitForRows(page, ['flaky-export']);
    await page.getByRole('searchbox', { name: 'Search tasks' }).fill('no task says this');
    await page.getByText(/No tasks match/).waitFor();
  });

  it('filters by status, group and kind, searches by name, and bulk-cancels the selection', async () => {
    const hour = 3600_000;
    const specs = [
      { name: 'report-alpha', group: 'vendor', kind: 'sleep', payload: { ms: 10 } },
      { name: 'report-beta', group: 'mail', kind: 'sleep', payload: { ms: 10 } },
      { name: 'backup-nightly', group: 'backups', kind: 'sleep', payload: { ms: 10 } },
      {
        name: 'report-gamma',
        group: 'vendor',
        kind: 'shell',
        payload: { command: process.execPath, args: ['-e', ''] },
      },
      { name: 'cleanup-temp', kind: 'sleep', payload: { ms: 10 } },
    ].map((s) => ({ ...s, delayMs: hour })); // delayed: they stay pending while the test looks
    let ids: number[] = [];
    const { db, page } = await open({ before: async (db) => void (ids = await enqueueMany(db, specs)) });
    await go(page, 'Tasks');
    await waitForRows(page, [
      'cleanup-temp',
      'report-gamma',
      'backup-nightly',
      'report-beta',
      'report-alpha',
    ]);
    await waitForText(page.getByTestId('task-total'), '5 tasks');

    // `/` focuses the search field from the list.
    await page.getByRole('grid', { name: 'Tasks' }).focus();
    await page.keyboard.press('/');
    const search = page.getByRole('searchbox', { name: 'Search tasks' });
    expect(await search.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('report');
    await waitForRows(page, ['report-gamma', 'report-beta', 'report-alpha']);
    await waitForText(page.getByTestId('task-total'), '3 matches');

    const filters = page.getByRole('search', { name: 'Filter tasks' });
    await filters.getByLabel('Group').selectOption('vendor');
    await waitForRows(page, ['report-gamma', 'report-alpha']);
    await filters.getByLabel('Kind').selectOption('shell');
    await waitForRows(page, ['report-gamma']);
    await filters.getByRole('button', { name: 'Clear filters' }).click();
    await waitForRows(page, [
      'cleanup-temp',
      'report-gamma',
      'backup-nightly',
      'report-beta',
      'report-alpha',
    ]);

    // Sorting by name, ascending.
    await filters.getByLabel('Sort').selectOption('name');
    await filters.getByRole('button', { name: /switch to ascending/ }).click();
    await waitForRows(page, [
      'backup-nightly',
      'cleanup-temp',
      'report-alpha',
      'report-beta',
      'report-gamma',
    ]);
    await filters.getByLabel('Sort').selectOption('createdAt');
    await filters.getByRole('button', { name: /switch to descending/ }).click();

    // Select two, then a task arrives from another process: the selection survives the update.
    await search.fill('report');
    await waitForRows(page, ['report-gamma', 'report-beta', 'report-alpha']);
    await page.getByRole('checkbox', { name: /report-alpha$/ }).check();
    await page.getByRole('checkbox', { name: /report-beta$/ }).check();
    await page.getByRole('toolbar', { name: 'Selected tasks' }).getByText('2 tasks selected').waitFor();
    await enqueueMany(db, [{ name: 'report-delta', kind: 'sleep', payload: { ms: 10 }, delayMs: hour }]);
    await waitForRows(page, ['report-delta', 'report-gamma', 'report-beta', 'report-alpha']);
    expect(await page.getByRole('checkbox', { name: /report-alpha$/ }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /report-beta$/ }).isChecked()).toBe(true);
    await screenshot(page, 'tasks-selection');

    await page
      .getByRole('toolbar', { name: 'Selected tasks' })
      .getByRole('button', { name: 'Cancel selected' })
      .click();
    await confirmDialog(page, 'Cancel 2 pending tasks?', 'Cancel 2 tasks');
    await page.getByRole('status').getByText('2 tasks cancelled').waitFor();
    expect(await page.getByRole('toolbar', { name: 'Selected tasks' }).count()).toBe(0);

    await search.fill('');
    await filters.getByText('cancelled').click();
    await waitForRows(page, ['report-beta', 'report-alpha']);
    const cancelled = await semaforoJson<ListedTask[]>(db, ['list', '--status', 'cancelled']);
    expect(cancelled.map((t) => t.id).sort()).toEqual([ids[0], ids[1]].sort());
    await filters.getByText('cancelled').click();
    await filters.getByText('pending').click();
    await waitForRows(page, ['report-delta', 'cleanup-temp', 'report-gamma', 'backup-nightly']);
  });
});
