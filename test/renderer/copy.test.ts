/**
 * What the dashboard says when things go sideways: a cancel of a running task, a server that went
 * away (stale numbers marked, a human message instead of the browser's "Failed to fetch").
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { enqueueMany } from './cli-processes.ts';
import { go } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!hasChromium)('dashboard copy', () => {
  const open = dashboardSession();

  it('names only what a cancel did, and gives the count buttons their visible text as name', async () => {
    const { page, server } = await open();
    await enqueueMany(server.db, [{ name: 'long-export', kind: 'sleep', payload: { ms: 60_000 } }]);
    await page.getByRole('button', { name: '1 Running', exact: true }).waitFor();
    await go(page, 'Tasks');
    await page.locator('[data-task-id] [data-status="running"]').waitFor();
    await page.getByRole('link', { name: 'long-export' }).click();
    const panel = page.getByRole('complementary', { name: 'long-export' });
    await panel.getByRole('button', { name: 'Cancel' }).click();
    const dialog = page.getByRole('dialog', { name: /^Cancel task \d+ “long-export”\?$/ });
    await dialog.getByRole('button', { name: 'Cancel task' }).click();
    const notice = page.getByRole('status').getByText('1 running task is being stopped');
    await notice.waitFor();
    expect(await page.getByRole('status').innerText()).not.toMatch(/0 tasks/);
  });

  it('marks the numbers stale and says the server cannot be reached when it stops', async () => {
    const { page, server } = await open();
    await page.getByRole('button', { name: '0 Running', exact: true }).waitFor();
    expect(await page.getByTestId('stale-marker').count()).toBe(0);
    await server.stop();
    await page
      .getByTestId('stale-marker')
      .getByText(/Numbers as of \d\d:\d\d:\d\d/)
      .waitFor();
    expect(await page.locator('.big-numbers.stale').count()).toBe(1);
    await page.getByRole('button', { name: 'Pause queue' }).click();
    const notice = page.getByRole('status').getByText(/cannot reach the Semaforo server/);
    await notice.waitFor();
    expect(await page.getByRole('status').innerText()).not.toMatch(/TypeError|Failed to fetch/);
  });

  it('keeps the window when a part loaded on demand cannot be fetched, and says so in that part', async () => {
    const { page } = await open();
    // The charts' chunk (script and stylesheet) is gone, as when the server stops mid-load.
    await page.route(/\/assets\/ThroughputCharts-[^/]+$/, (route) => route.abort());
    await page.reload();
    await page.getByRole('alert').getByText('Could not load the charts').waitFor();
    await page.getByRole('button', { name: '0 Running', exact: true }).waitFor();
    expect(await page.getByRole('heading', { name: 'Groups' }).count()).toBe(1);
  });
});
