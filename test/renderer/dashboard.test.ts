/**
 * The dashboard end to end: the built renderer in headless Chromium, talking HTTP+SSE to a
 * spawned `semaforo serve`, while other `semaforo` processes (enqueue, work, pause, …) change
 * the same database file — the way a person watches cron jobs from a browser.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { enqueueMany, semaforo, semaforoJson, work } from './cli-processes.ts';
import { go, rowNames, screenshot, waitForRows, waitForText } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

interface ListedTask {
  id: number;
  name: string;
  status: string;
}

describe.skipIf(!hasChromium)('dashboard in headless Chromium against semaforo serve', () => {
  const open = dashboardSession();

  const count = (page: Page, label: string) => page.getByTestId(`count-${label}`);

  async function confirmDialog(page: Page, question: string | RegExp, button: string | RegExp) {
    const dialog = page.getByRole('dialog', { name: question });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: button }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  it('takes the token from the address, then keeps it out of the URL', async () => {
    const { page, server } = await open();
    expect(page.url()).toBe(`${server.origin}/`);
    expect(await page.title()).toBe('Semaforo — Overview');
    // A reload keeps working: the token became the server's session cookie.
    await page.reload();
    await waitForText(count(page, 'running'), '0');
  });

  it('shows counts enqueued from another process and updates them live as a worker runs the tasks', async () => {
    const { db, page } = await open();
    await waitForText(count(page, 'waiting'), '0');
    await page.getByText('No tasks').or(page.getByText('Nothing running')).first().waitFor();

    // Another process pauses the queue and enqueues three tasks; the open page follows.
    expect((await semaforo(db, ['pause'])).code).toBe(0);
    for (let i = 1; i <= 3; i++) {
      const r = await semaforo(db, [
        'enqueue',
        '--kind',
        'sleep',
        '--name',
        `nightly-${i}`,
        '--group',
        'batch',
        '--payload',
        '{"ms":1500}',
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    await waitForText(count(page, 'waiting'), '3');
    await waitForText(count(page, 'running'), '0');
    await waitForText(count(page, 'done'), '0');
    await page.getByRole('img', { name: 'Queue: Paused' }).first().waitFor();
    const batch = page.getByRole('article', { name: 'Group batch' });
    await batch.getByText('3 waiting').waitFor();
    await screenshot(page, 'overview-paused');

    // A worker in yet another process, and Resume in the page: the tasks run and finish.
    const worker = work(db);
    await page.getByRole('button', { name: 'Resume queue' }).click();
    await page.getByRole('status').getByText('The queue runs again').waitFor();
    await waitForText(count(page, 'running'), '3');
    const running = page.getByRole('list', { name: 'Running tasks' });
    for (let i = 1; i <= 3; i++) await running.getByText(`nightly-${i}`).waitFor();
    await batch.getByText('3 running (no group limit), no rate limit').waitFor();
    await screenshot(page, 'overview-running');
    await waitForText(count(page, 'done'), '3');
    await waitForText(count(page, 'running'), '0');
    await waitForText(count(page, 'waiting'), '0');
    await page.getByText('3 finished in the last hour').waitFor();
    await worker.stop();
  });

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

  it('says why a waiting task waits, in its row and in its detail', async () => {
    const { db, page } = await open();
    expect((await semaforo(db, ['group', 'set', 'nightly', '--concurrency', '1'])).code).toBe(0);
    expect((await semaforo(db, ['pause', 'nightly'])).code).toBe(0);
    const r = await semaforo(db, ['enqueue', '--group', 'nightly', '--name', 'db-dump', '--', 'true']);
    expect(r.code, r.stderr).toBe(0);
    await go(page, 'Tasks');
    const cell = page.locator('[role="row"] [data-waiting="group-paused"]');
    await cell.getByText('group paused').waitFor();
    expect(await page.locator('[role="row"] .cell-time[title]').first().getAttribute('title')).toBe(
      'group nightly is paused (semaforo resume nightly)',
    );
    await page.getByRole('link', { name: 'db-dump' }).click();
    const panel = page.getByRole('complementary', { name: 'db-dump' });
    await panel.locator('[data-waiting="group-paused"]').getByText('group nightly is paused').waitFor();
    // Resumed from another process: the reason goes, the task runs.
    expect((await semaforo(db, ['resume', 'nightly'])).code).toBe(0);
    await panel.locator('[data-waiting]').waitFor({ state: 'detached', timeout: 20_000 });
  });

  it('opens a task from the keyboard and shows every attempt with its timing, error and output', async () => {
    const { db, page } = await open();
    const r = await semaforo(db, [
      'enqueue',
      '--name',
      'vendor-sync',
      '--max-attempts',
      '2',
      '--',
      process.execPath,
      '-e',
      "console.log('fetched 3 pages'); console.error('vendor said no'); process.exit(3)",
    ]);
    expect(r.code, r.stderr).toBe(0);
    await go(page, 'Tasks');
    // Two attempts with the default backoff (about a second) in between.
    await page.locator('[role="row"] [data-status="failed"]').waitFor({ timeout: 20_000 });

    await page.getByRole('grid', { name: 'Tasks' }).focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('Enter');
    const panel = page.getByRole('complementary', { name: 'vendor-sync' });
    await panel.waitFor();
    const history = panel.locator('.history-entry.attempt');
    await history.nth(1).waitFor();
    expect(await history.count()).toBe(2);
    // Newest first: attempt 2 failed for good, attempt 1 failed and waited for its retry.
    await history.nth(0).getByText('Attempt 2').waitFor();
    await history.nth(0).locator('.status-word').getByText('failed', { exact: true }).waitFor();
    await history.nth(0).locator('.history-code').getByText('exit 3').waitFor();
    await history
      .nth(0)
      .getByText(/after a wait of \d/)
      .waitFor();
    // The same error twice is said once, at the attempt that said it first.
    await history.nth(0).getByText('Same error as attempt 1.').waitFor();
    await history.nth(1).getByText('Attempt 1').waitFor();
    await history.nth(1).getByText('failed, will retry').waitFor();
    await history
      .nth(1)
      .getByText(/took \d/)
      .waitFor();
    await history
      .nth(1)
      .getByText(/exited with code 3/)
      .waitFor();
    await history
      .nth(0)
      .locator('pre')
      .getByText(/fetched 3 pages/)
      .waitFor();
    await panel.getByText('2 of 2').waitFor();
    await panel
      .getByRole('region', { name: 'Last error' })
      .getByText(/vendor said no/)
      .waitFor();
    // A shell task's payload is the command line it runs, as it could be pasted.
    const commandLine = await panel.getByLabel('Command line', { exact: true }).textContent();
    expect(commandLine).toContain(`${process.execPath} -e 'console.log(`);
    await panel
      .getByRole('list', { name: 'Timeline' })
      .getByText(/^ended/)
      .waitFor();
    await screenshot(page, 'task-detail');

    // Priority changes at once; Escape closes the panel.
    await panel.getByLabel('Priority (0 runs first)').selectOption('1');
    await page
      .getByRole('status')
      .getByText(/now has priority 1/)
      .waitFor();
    await panel.getByText('priority changed').waitFor();

    // A manual retry starts a new budget, but the third run is still the third attempt.
    await panel.getByRole('button', { name: 'Retry' }).click();
    await confirmDialog(page, /Retry/, /^Retry/);
    await history.nth(2).waitFor({ timeout: 20_000 });
    await history.nth(0).getByText('Attempt 3').waitFor();
    await page.getByRole('grid', { name: 'Tasks' }).focus();
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
  });

  it("streams a running task's output to its detail, and greys a cancel", async () => {
    const { db, page } = await open();
    const goFile = path.join(path.dirname(db), 'go-live');
    const [id] = await enqueueMany(db, [
      {
        name: 'long-export',
        kind: 'shell',
        payload: {
          command: `echo "page 1 of 3"; while [ ! -e '${goFile}' ]; do sleep 0.05; done; echo "page 3 of 3"`,
          shell: true,
        },
      },
    ]);
    await go(page, 'Tasks');
    await page.getByRole('link', { name: 'long-export' }).click();
    const panel = page.getByRole('complementary', { name: 'long-export' });
    const attempt = panel.locator('.history-entry.attempt').first();
    // Seen while it runs: the worker writes the output tail about once a second.
    await attempt.getByText('Output so far (last lines)').waitFor({ timeout: 20_000 });
    await attempt.locator('pre').getByText('page 1 of 3').waitFor();
    expect(await panel.locator('.status-word').first().textContent()).toBe('running');
    fs.writeFileSync(goFile, '');
    await attempt.getByText('Output (last lines)', { exact: true }).waitFor({ timeout: 20_000 });
    await attempt.locator('pre').getByText('page 3 of 3').waitFor();

    // A cancel is the user's own doing: said in grey, not as a red error.
    const [waiting] = await enqueueMany(db, [
      { name: 'later', kind: 'shell', delay: '1h', payload: { command: 'true' } },
    ]);
    expect(waiting).toBeGreaterThan(id!);
    const c = await semaforo(db, ['cancel', String(waiting)]);
    expect(c.code, c.stderr).toBe(0);
    await page.goto(page.url().replace(/#.*$/, `#/tasks/${waiting}`));
    const cancelled = page.getByRole('complementary', { name: 'later' });
    const why = cancelled.getByRole('region', { name: 'Why it was cancelled' });
    await why.waitFor();
    expect(await why.getAttribute('class')).toContain('tone-grey');
  });

  it('validates the New task form with the shared schemas and the server, then queues the task', async () => {
    const { db, page } = await open();
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'New task' }).click();
    await page.waitForFunction(() => document.title === 'Semaforo — New task');
    const form = page.locator('form.task-form');
    await form.getByLabel('Priority').fill('12');
    await form.getByLabel('Delay').fill('soon');
    await form.getByRole('button', { name: 'Queue task' }).click();
    await form.getByText('must be an integer from 0 to 9').waitFor();
    await form.getByText(/is not a duration/).waitFor();
    await form.getByRole('alert').getByText('2 fields need fixing').waitFor();
    expect(await form.getByLabel('Priority').getAttribute('aria-invalid')).toBe('true');

    // Locally valid, but the shell handler (on the server) wants a command: its issue lands on the field.
    await form.getByLabel('Priority').fill('2');
    await form.getByLabel('Delay').fill('');
    await form.getByRole('button', { name: 'Queue task' }).click();
    await page.locator('#task-command-message').getByText('must not be empty').waitFor();
    await screenshot(page, 'new-task-errors');

    await form.getByLabel('Command').fill(process.execPath);
    await form.getByLabel('Arguments').fill('-e\nconsole.log("from the form")');
    await form.getByLabel('Name').fill('made-in-the-form');
    await form.getByLabel('Group').fill('forms');
    await form.getByRole('button', { name: 'Queue task' }).click();
    const panel = page.getByRole('complementary', { name: 'made-in-the-form' });
    await panel.waitFor();
    await page
      .getByRole('status')
      .getByText(/“made-in-the-form” queued/)
      .waitFor();
    await panel.locator('[data-status="done"]').waitFor({ timeout: 15_000 });
    await panel.getByText('from the form', { exact: true }).waitFor();
    const [task] = await semaforoJson<(ListedTask & { priority: number; group: string })[]>(db, ['list']);
    expect(task).toMatchObject({ name: 'made-in-the-form', priority: 2, group: 'forms', status: 'done' });

    // Duplicate and edit: the form comes back prefilled from the task.
    await panel.getByRole('button', { name: 'Duplicate and edit' }).click();
    await page.waitForFunction(() => document.title === 'Semaforo — New task');
    expect(await form.getByLabel('Command').inputValue()).toBe(process.execPath);
    expect(await form.getByLabel('Arguments').inputValue()).toBe('-e\nconsole.log("from the form")');
    expect(await form.getByLabel('Group').inputValue()).toBe('forms');
    expect(await form.getByLabel('Priority').inputValue()).toBe('2');
    await screenshot(page, 'new-task-duplicate');
  });

  it('edits group limits and queue settings, with validation messages', async () => {
    const { db, page } = await open({
      before: async (db) =>
        void (await enqueueMany(db, [
          { kind: 'sleep', group: 'vendor', payload: { ms: 1 }, delayMs: 3600_000 },
        ])),
    });
    await go(page, 'Groups');
    const vendor = page.getByRole('form', { name: 'Limits of group vendor' });
    await vendor.getByLabel('At once').fill('2');
    await vendor.getByLabel('Rate limit').fill('fast');
    await vendor.getByRole('button', { name: 'Save' }).click();
    await vendor.getByText(/"fast" is not a rate/).waitFor();
    await vendor.getByLabel('Rate limit').fill('5/min');
    await vendor.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .getByText(/Group vendor saved/)
      .waitFor();
    await page.getByText('0 / 2 running, 0 of 5 per minute used').waitFor();
    await screenshot(page, 'groups');
    const stats = await semaforoJson<{
      groups: { name: string; concurrency: number; rate: { limit: number; periodMs: number } }[];
    }>(db, ['stats']);
    expect(stats.groups.find((g) => g.name === 'vendor')).toMatchObject({
      concurrency: 2,
      rate: { limit: 5, periodMs: 60_000 },
    });

    await go(page, 'Settings');
    await page.getByText(`Stored in: SQLite file ${db}`).waitFor();
    const settings = page.getByRole('form', { name: 'Limits and retention' });
    await settings.getByLabel('Global concurrency').fill('0');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.getByText('must be an integer from 1 to 10000').waitFor();
    await settings.getByLabel('Global concurrency').fill('4');
    await settings.getByLabel('Keep finished tasks (days)').fill('14');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page
      .getByRole('status')
      .getByText('Saved: up to 4 tasks at once, finished tasks kept 14 days')
      .waitFor();
    await screenshot(page, 'settings');
    const saved = await semaforoJson<{ globalConcurrency: number; retentionDays: number }>(db, ['settings']);
    expect(saved).toMatchObject({ globalConcurrency: 4, retentionDays: 14 });
  });

  it('pages 100,000 tasks into a virtualised list that keeps its scroll position on live updates', async () => {
    const total = 100_000;
    const specs = Array.from({ length: total }, (_, i) => ({
      kind: 'sleep',
      name: `bulk-${String(i).padStart(6, '0')}`,
      group: ['alpha', 'beta', 'gamma'][i % 3],
      delayMs: 3600_000,
      payload: { ms: 10 },
    }));
    const { db, page, server } = await open({ before: async (db) => void (await enqueueMany(db, specs)) });
    await waitForText(count(page, 'waiting'), '100,000');

    // First paint measured from a reload straight onto each screen (printed, not asserted:
    // wall-clock timings on a shared machine are noise).
    const measure = async (hash: string, mark: string) => {
      await page.evaluate((h) => (window.location.hash = h), hash);
      await page.reload();
      await page.waitForFunction((m) => performance.getEntriesByName(m).length > 0, mark, {
        timeout: 10_000,
      });
      return page.evaluate((m) => {
        const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN;
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
        return {
          firstContentfulPaint: Math.round(fcp),
          domContentLoaded: Math.round(nav?.domContentLoadedEventEnd ?? NaN),
          data: Math.round(performance.getEntriesByName(m)[0]!.startTime),
        };
      }, mark);
    };
    const tasks = await measure('#/tasks', 'semaforo:first-task-rows');
    const overview = await measure('#/overview', 'semaforo:first-stats');
    console.log(
      `first paint with ${total.toLocaleString('en')} tasks (ms after navigation start): ` +
        `Tasks screen FCP ${tasks.firstContentfulPaint}, first rows ${tasks.data}; ` +
        `Overview FCP ${overview.firstContentfulPaint}, counts ${overview.data}`,
    );

    await go(page, 'Tasks');
    await waitForText(page.getByTestId('task-total'), '100,000 tasks');
    const grid = page.getByRole('grid', { name: 'Tasks' });
    expect(await grid.getAttribute('aria-rowcount')).toBe(String(total + 1));
    const rendered = await page.locator('[role="grid"] [role="row"][aria-rowindex]').count();
    expect(rendered).toBeLessThan(100); // virtualised: only what is in view (+ overscan)
    expect((await rowNames(page))[0]).toBe('bulk-099999');
    await screenshot(page, 'tasks-100k');

    // The far end loads on demand.
    await grid.focus();
    await page.keyboard.press('End');
    await page.locator('[role="row"][data-task-id] .cell-name', { hasText: /^bulk-000000$/ }).waitFor();

    // Scroll into the middle, then let another process add a task: the view stays where it was.
    const scroller = page.locator('.task-grid-scroll');
    await scroller.evaluate((el) => el.scrollTo({ top: 1_500_000 }));
    await page.locator('[role="row"][aria-rowindex="50001"][data-task-id]').waitFor();
    const before = await scroller.evaluate((el) => el.scrollTop);
    await enqueueMany(db, [{ kind: 'sleep', name: 'late-arrival', delayMs: 3600_000, payload: { ms: 10 } }]);
    await waitForText(page.getByTestId('task-total'), '100,001 tasks');
    expect(await scroller.evaluate((el) => el.scrollTop)).toBe(before);
    await page.locator('[role="row"][aria-rowindex="50001"][data-task-id]').waitFor();
    void server;
  }, 90_000);

  it('writes a screenshot of every screen, light and dark, at 1280x800 and 800x600', async () => {
    const { db, page } = await open({
      before: async (db) => {
        await semaforo(db, ['group', 'set', 'vendor', '--concurrency', '2', '--rate', '10/min']);
        await enqueueMany(db, [
          ...['invoices', 'customers', 'orders'].map((n) => ({
            kind: 'sleep',
            name: `vendor-${n}`,
            group: 'vendor',
            payload: { ms: 20_000 },
          })),
          ...[1, 2, 3].map((n) => ({
            kind: 'shell',
            name: `mailer-batch-${n}`,
            group: 'mail',
            maxAttempts: 1,
            payload: {
              command: process.execPath,
              args: ['-e', 'console.error("SMTP 421 try later"); process.exit(1)'],
            },
          })),
          {
            kind: 'shell',
            name: 'backup-photos',
            group: 'backups',
            maxAttempts: 1,
            payload: { command: process.execPath, args: ['-e', 'process.exit(2)'] },
          },
          ...Array.from({ length: 12 }, (_, i) => ({
            kind: 'sleep',
            name: `thumbnail-${i + 1}`,
            payload: { ms: 50 },
          })),
          ...Array.from({ length: 6 }, (_, i) => ({
            kind: 'sleep',
            name: `report-${i + 1}`,
            group: 'vendor',
            delayMs: 3600_000,
            payload: { ms: 50 },
          })),
        ]);
      },
    });
    await waitForText(count(page, 'failed'), '4', 20_000);
    await waitForText(count(page, 'running'), '2', 20_000);
    await waitForText(count(page, 'done'), '12', 20_000);
    await page.getByText('16 finished in the last hour').waitFor({ timeout: 20_000 });
    const shots = async (suffix: string) => {
      await go(page, 'Overview');
      await page.getByText('16 finished in the last hour').waitFor();
      await screenshot(page, `overview${suffix}`);
      await go(page, 'Tasks');
      await page.locator('[role="row"][data-task-id]').first().waitFor();
      await screenshot(page, `tasks${suffix}`);
      await page.locator('[role="row"][data-task-id]').filter({ hasText: 'mailer-batch-3' }).click();
      await page.getByRole('complementary', { name: 'mailer-batch-3' }).getByText('Attempt 1').waitFor();
      await screenshot(page, `task-detail${suffix}`);
      await go(page, 'Failures');
      await page.getByRole('region', { name: /SMTP 421/ }).waitFor();
      await screenshot(page, `failures${suffix}`);
      await go(page, 'Groups');
      await page.getByRole('form', { name: 'Limits of group vendor' }).waitFor();
      await screenshot(page, `groups${suffix}`);
      await go(page, 'Settings');
      await page.getByRole('form', { name: 'Limits and retention' }).waitFor();
      await screenshot(page, `settings${suffix}`);
      await page
        .getByRole('navigation', { name: 'Screens' })
        .getByRole('button', { name: 'New task' })
        .click();
      await page.locator('form.task-form').waitFor();
      await screenshot(page, `new-task${suffix}`);
    };
    await shots('');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shots('-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 800, height: 600 });
    await shots('-800x600');
    // At 800x600 nothing may stick out sideways.
    await go(page, 'Tasks');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(800);
    await semaforo(db, ['cancel', '1', '2', '3']);
  }, 90_000);
});
