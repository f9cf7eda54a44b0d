/**
 * A task's detail: why it waits, every attempt with its timing, error and output (opened from the
 * keyboard), and a running task's output streamed live.
 * Part of the dashboard's end-to-end suite: the built renderer in headless Chromium, talking
 * HTTP+SSE to a spawned `semaforo serve`, while other `semaforo` processes change the same file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { enqueueMany, semaforo } from './cli-processes.ts';
import { go, screenshot } from './dashboard-page.ts';
import { confirmDialog, hasChromium } from './dashboard-steps.ts';
import { dashboardSession } from './harness.ts';

describe.skipIf(!hasChromium)('dashboard in headless Chromium against semaforo serve', () => {
  const open = dashboardSession();

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

    // A reason that starts with "waiting" says it once after the panel's own "Waiting".
    const g = await semaforo(db, ['enqueue', '--uses', 'gpu', '--name', 'render', '--', 'true']);
    expect(g.code, g.stderr).toBe(0);
    await page.getByRole('link', { name: 'render' }).click();
    const reason = page.getByRole('complementary', { name: 'render' }).locator('[data-waiting="resource"]');
    await reason.waitFor();
    expect(await reason.textContent()).toBe(
      'for gpu: no such resource (semaforo resource set gpu --capacity N)',
    );
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
});
