/**
 * A typo'd group in the New task form would silently create a new group without limits: before
 * the form is sent, the Group field says so and names the group that was probably meant.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { semaforo, semaforoJson } from './cli-processes.ts';
import { waitForText } from './dashboard-page.ts';
import { CHROMIUM, dashboardSession } from './harness.ts';

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`skipped: no Chromium at ${CHROMIUM}`);

describe.skipIf(!hasChromium)('New task: the group named', () => {
  const open = dashboardSession();

  it('says "new group, no limits" for a group that does not exist yet, and nothing for a known one', async () => {
    const before = async (db: string) => {
      const r = await semaforo(db, ['group', 'set', 'vendor', '--concurrency', '1', '--rate', '5/s']);
      expect(r.code, r.stderr).toBe(0);
    };
    const { db, page } = await open({ before });
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'New task' }).click();
    await page.waitForFunction(() => document.title === 'Semaforo — New task');
    const form = page.locator('form.task-form');
    const group = form.getByLabel('Group');
    const hint = page.locator('#task-group-hint');
    await waitForText(hint, 'whose limits apply; default: default');

    await group.fill('vendr');
    await waitForText(hint, '⚠ new group, no limits: “vendr” does not exist yet; did you mean “vendor”?');
    // the input is described by it, so a screen reader reads it with the field
    expect(await group.getAttribute('aria-describedby')).toBe('task-group-hint');
    expect(await group.getAttribute('aria-invalid')).toBeNull();

    await group.fill('vendor');
    await waitForText(hint, 'whose limits apply; default: default');
    await group.fill('reports');
    await waitForText(hint, '⚠ new group, no limits: “reports” does not exist yet');

    // A warning, not a refusal: the task is queued in the new group.
    await form.getByLabel('Command').fill('true');
    await form.getByRole('button', { name: 'Queue task' }).click();
    await page
      .getByRole('status')
      .getByText(/queued/)
      .waitFor();
    const groups = await semaforoJson<{ name: string }[]>(db, ['group', 'list']);
    expect(groups.map((g) => g.name)).toContain('reports');
  });
});
