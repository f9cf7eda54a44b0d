/** Named resources and machine gates on the dashboard's Groups screen, and `uses` in the New task form. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../electron/core/store/sqlite/sqlite-store.ts';
import type { Task } from '../../shared/domain.ts';
import { semaforoJson } from './cli-processes.ts';
import { go, screenshot } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

/** main-db held by a (far) worker's task, two more waiting for it, and a gate on backups. */
function heldQueue(db: string): void {
  const store = new SqliteTaskStore(db);
  store.setResource('main-db', 1);
  store.setGate('backups', { maxLoad: 0.8, onAc: true, whenIdleMs: 300_000, pauseRunning: true });
  store.enqueue(
    ['backups', 'deploys', 'deploys'].map((group, i) => ({
      kind: 'sleep',
      name: `db ${i}`,
      group,
      priority: 5,
      maxAttempts: 3,
      payload: '{"ms":1}',
      runAt: 0,
      timeout: null,
      unique: null,
      uses: [{ resource: 'main-db', weight: 1 }],
    })),
    0,
  );
  const worker = { id: 'far@elsewhere:1:x', pid: 1, host: 'elsewhere' };
  store.tick({ now: () => Date.now(), worker, leaseMs: 600_000, finishes: [], claimMax: 1 });
  store.close();
}

describe.skipIf(!hasChromium)('resources and gates on the dashboard', () => {
  const open = dashboardSession();

  it('shows who holds and waits for a resource and the gates; the New task form takes uses', async () => {
    const { db, page } = await open({ before: async (db) => heldQueue(db) });
    await go(page, 'Groups');
    const panel = page.getByRole('region', { name: 'Resources and machine gates' });
    const row = panel.getByRole('row', { name: /main-db/ });
    await row.getByText('1 of 1').waitFor();
    expect(await row.getByRole('cell').allInnerTexts()).toEqual(['1 of 1', '1', '2, 3', '–']);
    await panel
      .getByText(
        /backups: starts only with load ≤ 0.8 per core, on AC, the user idle ≥ 5m; pauses running shell tasks while closed/,
      )
      .waitFor();
    // The serving process's machine judges it: no idle time outside the tray app, a real load.
    await panel
      .getByText(/here now: (closed: load [\d.]+ per core > 0\.8|open \(.*cannot read .*the idle time)/)
      .waitFor();
    await screenshot(page, 'groups-resources');

    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'New task' }).click();
    await page.waitForFunction(() => document.title === 'Semaforo — New task');
    const form = page.locator('form.task-form');
    await form.getByLabel('Command').fill('true');
    await form.getByLabel('Uses').fill('cpu:0');
    await form.getByRole('button', { name: 'Queue task' }).click();
    await form.getByText(/the weight of cpu must be a whole number from 1/).waitFor();
    await form.getByLabel('Uses').fill('main-db');
    await form.getByLabel('Name').fill('needs-the-db');
    await form.getByRole('button', { name: 'Queue task' }).click();
    await page.getByRole('complementary', { name: 'needs-the-db' }).waitFor();
    const tasks = await semaforoJson<Task[]>(db, ['list']);
    expect(tasks.find((t) => t.name === 'needs-the-db')?.uses).toEqual([{ resource: 'main-db', weight: 1 }]);
  });
});
