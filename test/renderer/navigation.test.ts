/**
 * Links and keyboard in headless Chromium against `semaforo serve`: a deep link pasted into a new
 * tab opens without the token (the session cookie), links open new tabs the browser's way, and a
 * keyboard user can retry with R then Enter and keeps their place when a dialog or panel closes.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { enqueueMany, semaforo } from './cli-processes.ts';
import { apiCall, go, waitForRows } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

const HOUR = 3600_000;

describe.skipIf(!hasChromium)('dashboard links and keyboard', () => {
  const open = dashboardSession();

  it('opens a deep link in a new context that has the session cookie, without asking for the token', async () => {
    let ids: number[] = [];
    const specs = ['first', 'deep-linked', 'last'].map((name) => ({
      name,
      kind: 'sleep',
      payload: { ms: 10 },
      delayMs: HOUR,
    }));
    const { page, server } = await open({ before: async (db) => void (ids = await enqueueMany(db, specs)) });
    const id = ids[1]!;

    // The token became a cookie the page's scripts cannot read, kept to this server and site.
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === `semaforo_${new URL(server.origin).port}`);
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(session!.value).not.toContain(server.token);
    expect(await page.evaluate(() => document.cookie)).toBe('');

    // A new window of the same browser: the pasted link opens the task, and live updates flow.
    const tab = await open.newPage({ cookies });
    await tab.goto(`${server.origin}/#/tasks/${id}`);
    await tab.getByRole('complementary', { name: 'deep-linked' }).waitFor();
    await waitForRows(tab, ['last', 'deep-linked', 'first']);
    await enqueueMany(server.db, [{ name: 'arrived', kind: 'sleep', payload: { ms: 10 }, delayMs: HOUR }]);
    await waitForRows(tab, ['arrived', 'last', 'deep-linked', 'first']);

    // Without the cookie the link asks for the token; API clients keep using the bearer token.
    const stranger = await open.newPage({});
    await stranger.goto(`${server.origin}/#/tasks/${id}`);
    await stranger.getByText('This dashboard needs the address with its access token.').waitFor();
    expect((await apiCall<{ counts: { pending: number } }>(server, 'stats')).counts.pending).toBe(4);
    const refused = await fetch(`${server.origin}/api/stats`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `semaforo_${new URL(server.origin).port}=nope` },
      body: 'null',
    });
    expect(refused.status).toBe(401);
  });

  it('lets Ctrl+click open a rail link or a task name in a new tab, and keeps plain clicks in the page', async () => {
    let ids: number[] = [];
    const specs = [{ name: 'linked-task', kind: 'sleep', payload: { ms: 10 }, delayMs: HOUR }];
    const { page } = await open({ before: async (db) => void (ids = await enqueueMany(db, specs)) });
    const rail = page.getByRole('navigation', { name: 'Screens' });
    expect(await rail.getByRole('link', { name: 'Failures' }).getAttribute('href')).toBe('#/failures');

    const popup = page.context().waitForEvent('page');
    await rail.getByRole('link', { name: 'Failures' }).click({ modifiers: ['ControlOrMeta'] });
    const tab = await popup;
    await tab.waitForFunction(() => document.title === 'Semaforo — Failures');
    expect(await page.title()).toBe('Semaforo — Overview');

    await go(page, 'Tasks');
    const name = page.getByRole('link', { name: 'linked-task' });
    expect(await name.getAttribute('href')).toBe(`#/tasks/${ids[0]}`);
    const taskTab = page.context().waitForEvent('page');
    await name.click({ modifiers: ['ControlOrMeta'] });
    const second = await taskTab;
    await second.getByRole('complementary', { name: 'linked-task' }).waitFor();
    // The Ctrl+click neither opened the panel here nor selected the row.
    expect(await page.getByRole('complementary').count()).toBe(0);
    expect(await page.getByRole('checkbox', { name: /linked-task$/ }).isChecked()).toBe(false);

    await name.click();
    await page.getByRole('complementary', { name: 'linked-task' }).waitFor();
    expect(page.url()).toMatch(new RegExp(`#/tasks/${ids[0]}$`));
  });

  it('retries a failed task with the keyboard only (R, then Enter) and gives focus back on close', async () => {
    const before = async (db: string) => {
      const r = await semaforo(db, [
        'enqueue',
        '--name',
        'broken-export',
        '--max-attempts',
        '1',
        '--',
        'false',
      ]);
      expect(r.code, r.stderr).toBe(0);
      await semaforo(db, ['work', '--drain']);
    };
    const { db, page } = await open({ before });
    expect((await semaforo(db, ['pause'])).code).toBe(0); // so "back in the queue" stays visible
    await go(page, 'Tasks');
    await waitForRows(page, ['broken-export']);
    const grid = page.getByRole('grid', { name: 'Tasks' });
    await grid.focus();
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');

    await page.keyboard.press('r');
    const dialog = page.getByRole('dialog', { name: /^Retry task \d+ “broken-export”\?$/ });
    await dialog.waitFor();
    expect(
      await dialog.getByRole('button', { name: 'Retry task' }).evaluate((b) => b === document.activeElement),
    ).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('1 task back in the queue').waitFor();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('[data-task-id] [data-status="pending"]').waitFor();
    expect(await focused()).toBe('Tasks');

    // Escape on a dialog keeps the task as it is and gives focus back too.
    await page.keyboard.press('Delete');
    await page.getByRole('dialog', { name: /^Delete/ }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await focused()).toBe('Tasks');

    // The detail panel, opened with Enter and closed with its close button, hands focus back.
    await page.keyboard.press('Enter');
    const panel = page.getByRole('complementary', { name: 'broken-export' });
    await panel.waitFor();
    await panel.getByRole('button', { name: 'Close task details' }).focus();
    await page.keyboard.press('Enter');
    await panel.waitFor({ state: 'detached' });
    expect(await focused()).toBe('Tasks');
  });
});
