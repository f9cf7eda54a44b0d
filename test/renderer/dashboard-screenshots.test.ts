/**
 * A screenshot of every screen, light and dark, at two window sizes, over a queue with tasks in
 * every state (written to test-results/screenshots for review).
 * Part of the dashboard's end-to-end suite: the built renderer in headless Chromium, talking
 * HTTP+SSE to a spawned `semaforo serve`, while other `semaforo` processes change the same file.
 */
import { describe, expect, it } from 'vitest';
import { enqueueMany, semaforo } from './cli-processes.ts';
import { go, screenshot, waitForText } from './dashboard-page.ts';
import { count, hasChromium } from './dashboard-steps.ts';
import { dashboardSession } from './harness.ts';

describe.skipIf(!hasChromium)('dashboard in headless Chromium against semaforo serve', () => {
  const open = dashboardSession();

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
