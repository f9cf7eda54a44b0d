/**
 * The dashboard's forms: New task (validated with the shared schemas and the server) and the
 * group limits and queue settings editors.
 * Part of the dashboard's end-to-end suite: the built renderer in headless Chromium, talking
 * HTTP+SSE to a spawned `semaforo serve`, while other `semaforo` processes change the same file.
 */
import { describe, expect, it } from 'vitest';
import { enqueueMany, semaforoJson } from './cli-processes.ts';
import { go, screenshot } from './dashboard-page.ts';
import { hasChromium, type ListedTask } from './dashboard-steps.ts';
import { dashboardSession } from './harness.ts';

describe.skipIf(!hasChromium)('dashboard in headless Chromium against semaforo serve', () => {
  const open = dashboardSession();

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
});
