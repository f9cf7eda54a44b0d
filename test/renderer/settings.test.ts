/**
 * The Settings screen edits the failure alerts (desktop notifications and their groups, the
 * webhook) and the durability through the same validated request as `semaforo settings`: what
 * is saved reads back through the CLI, and a bad value is refused next to its field.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { QueueSettings } from '../../shared/domain.ts';
import { dropSchema, freshSchemaName, pgAvailable, pgLocation } from '../conformance/pg-backend.ts';
import { semaforoJson } from './cli-processes.ts';
import { go, screenshot, waitForText } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!hasChromium)('settings for alerts and durability', () => {
  const open = dashboardSession();

  it('saves notifications, the webhook and durability, and names a bad value beside its field', async () => {
    const { page, db } = await open();
    await go(page, 'Settings');
    const alerts = page.getByRole('form', { name: 'Failure alerts' });
    const webhook = alerts.getByRole('textbox', { name: 'Failure webhook' });
    const groups = alerts.getByRole('textbox', { name: 'Notify for groups' });
    const save = alerts.getByRole('button', { name: 'Save alerts' });

    // Refused in the browser, beside the field, before anything is sent.
    await webhook.fill('ftp://hooks.test/x');
    await groups.fill('backups, no spaces allowed');
    await save.click();
    await waitForText(
      alerts.locator('#settings-webhook-message'),
      /must be an http:\/\/ or https:\/\/ URL without a user name or password/,
    );
    expect(await webhook.getAttribute('aria-invalid')).toBe('true');
    await waitForText(
      alerts.locator('#settings-notify-groups-message'),
      /"no spaces allowed": must be 1-64 letters, digits/,
    );
    await screenshot(page, 'settings-refused');
    let s = await semaforoJson<QueueSettings>(db, ['settings']);
    expect(s.failureWebhook).toBeNull();

    await webhook.fill('https://hooks.test/semaforo');
    await groups.fill('backups, vendor');
    await alerts.getByRole('checkbox', { name: /Desktop notification/ }).uncheck();
    await save.click();
    await page
      .getByRole('status')
      .getByText(/^Saved: notifications off, webhook https:\/\/hooks\.test\/semaforo/)
      .waitFor();
    s = await semaforoJson<QueueSettings>(db, ['settings']);
    expect(s.notifications).toEqual({ enabled: false, groups: ['backups', 'vendor'] });
    expect(s.failureWebhook).toBe('https://hooks.test/semaforo');

    // Durability: each choice says what it means; the saved one reads back.
    const durability = page.getByRole('form', { name: 'Durability' });
    const full = durability.getByRole('radio', { name: 'Full' });
    expect(await durability.getByRole('radio', { name: 'Results (default)' }).isChecked()).toBe(true);
    await durability.getByText(/Every commit, enqueues included, waits for the disk/).waitFor();
    await full.check();
    await durability.getByRole('button', { name: 'Save durability' }).click();
    await page.getByRole('status').getByText('Saved: durability full').waitFor();
    s = await semaforoJson<QueueSettings>(db, ['settings']);
    expect(s.durability).toBe('full');

    // A change made from the CLI shows on the screen; clearing the webhook turns it off.
    await semaforoJson(db, ['settings', '--webhook', 'https://other.test/h']);
    await page.reload();
    await go(page, 'Settings');
    await expect.poll(() => webhook.inputValue()).toBe('https://other.test/h');
    expect(await full.isChecked()).toBe(true);
    await webhook.fill('');
    await save.click();
    await page
      .getByRole('status')
      .getByText(/no webhook$/)
      .waitFor();
    s = await semaforoJson<QueueSettings>(db, ['settings']);
    expect(s.failureWebhook).toBeNull();
  });

  it('keeps unsaved typing when another client changes the settings, and takes the untouched fields', async () => {
    const { page, db } = await open();
    await go(page, 'Settings');
    const alerts = page.getByRole('form', { name: 'Failure alerts' });
    const webhook = alerts.getByRole('textbox', { name: 'Failure webhook' });
    const groups = alerts.getByRole('textbox', { name: 'Notify for groups' });
    const concurrency = page.getByRole('textbox', { name: 'Global concurrency' });
    const retention = page.getByRole('textbox', { name: 'Keep finished tasks (days)' });
    await groups.fill('backups');
    await concurrency.fill('7');
    // Another client changes the webhook and the retention meanwhile.
    await semaforoJson(db, ['settings', '--webhook', 'https://other.test/h', '--retention', '9d']);
    await expect.poll(() => webhook.inputValue(), { timeout: 15_000 }).toBe('https://other.test/h');
    await expect.poll(() => retention.inputValue(), { timeout: 15_000 }).toBe('9');
    expect(await groups.inputValue()).toBe('backups');
    expect(await concurrency.inputValue()).toBe('7');
    await alerts.getByRole('button', { name: 'Save alerts' }).click();
    await page
      .getByRole('status')
      .getByText(/^Saved: notifications on, webhook https:\/\/other\.test\/h/)
      .waitFor();
    const s = await semaforoJson<QueueSettings>(db, ['settings']);
    expect(s.notifications.groups).toEqual(['backups']);
    expect(s.retentionDays).toBe(9);
    expect(await alerts.getByRole('button', { name: 'Save alerts' }).isDisabled()).toBe(true);
  });

  it('saves each notify group once, and refuses commas with no name beside the field', async () => {
    const { page, db } = await open();
    await go(page, 'Settings');
    const alerts = page.getByRole('form', { name: 'Failure alerts' });
    const groups = alerts.getByRole('textbox', { name: 'Notify for groups' });
    const save = alerts.getByRole('button', { name: 'Save alerts' });
    await groups.fill(',,,');
    await save.click();
    await waitForText(alerts.locator('#settings-notify-groups-message'), /names no group/);
    expect((await semaforoJson<QueueSettings>(db, ['settings'])).notifications.groups).toBeNull();
    await groups.fill('a, a, a');
    await save.click();
    await page
      .getByRole('status')
      .getByText(/^Saved: notifications on/)
      .waitFor();
    expect((await semaforoJson<QueueSettings>(db, ['settings'])).notifications.groups).toEqual(['a']);
  });

  it.skipIf(!pgAvailable)(
    'offers no durability choice on a PostgreSQL queue, which never reads it',
    async () => {
      const schema = freshSchemaName('dash');
      try {
        const { page } = await open({ db: pgLocation(schema) });
        await go(page, 'Settings');
        const panel = page.getByRole('region', { name: 'Durability' });
        await panel.getByText(/Applies to SQLite queues only/).waitFor();
        expect(await page.getByRole('radio', { name: 'Full' }).count()).toBe(0);
        await page.getByRole('form', { name: 'Failure alerts' }).waitFor();
      } finally {
        await dropSchema(schema);
      }
    },
  );

  it('offers the durability choice on a SQLite queue', async () => {
    const { page } = await open();
    await go(page, 'Settings');
    await page.getByText(/^Stored in: SQLite file/).waitFor();
    await page.getByRole('form', { name: 'Durability' }).getByRole('radio', { name: 'Full' }).waitFor();
  });
});
